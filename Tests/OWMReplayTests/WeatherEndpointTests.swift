import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

@Suite("WeatherEndpoint", .timeLimit(.minutes(1)))
struct WeatherEndpointTests {
    static func endpoint(
        apiKey: String? = nil,
        delays: [String] = [],
        failures: [String] = [],
        retryAfter: Int? = nil
    ) throws -> WeatherEndpoint {
        WeatherEndpoint(
            catalog: try WeatherCatalog(directory: TestEnvironment.demoData),
            apiKey: apiKey,
            delays: try delays.map { try #require(DelayRule(argument: $0)) },
            failures: try failures.map { try #require(FailRule(argument: $0)) },
            retryAfter: retryAfter,
            stats: ReplayStats()
        )
    }

    static func get(_ endpoint: WeatherEndpoint, _ uri: String, method: String = "GET") async -> ReplayResponse {
        await endpoint.respond(method: method, target: RequestTarget(uri))
    }

    static func json(_ response: ReplayResponse) throws -> JSONValue {
        try JSONValue.parse(response.body.utf8)
    }

    @Test("a city is answered with its recorded body")
    func city() async throws {
        let response = await Self.get(try Self.endpoint(), "/data/2.5/weather?q=Paris&units=metric")
        #expect(response.status == 200)
        let body = try Self.json(response)
        #expect(body["name"] == .string("Paris"))
        #expect(body["main"]?["temp"] == .double(7.42))
    }

    @Test("a city is answered in the units asked for")
    func unitsConverted() async throws {
        let endpoint = try Self.endpoint()
        let imperial = try Self.json(await Self.get(endpoint, "/data/2.5/weather?q=London&units=imperial"))
        #expect(imperial["main"]?["temp"] == .double(48.09))
        #expect(imperial["wind"]?["speed"] == .double(4.61))
        let standard = try Self.json(await Self.get(endpoint, "/data/2.5/weather?q=London"))
        #expect(standard["main"]?["temp"] == .double(282.09))
    }

    @Test("the path may end with a slash")
    func trailingSlash() async throws {
        #expect(await Self.get(try Self.endpoint(), "/data/2.5/weather/?q=Paris").status == 200)
    }

    @Test("an unknown city is OpenWeatherMap's city not found")
    func unknownCity() async throws {
        let response = await Self.get(try Self.endpoint(), "/data/2.5/weather?q=Atlantis")
        #expect(response.status == 404)
        #expect(response.body == ReplayResponse.cityNotFound.body)
    }

    @Test("an empty q, or neither q nor lat/lon, is nothing to geocode")
    func nothingToGeocode() async throws {
        let endpoint = try Self.endpoint()
        for uri in ["/data/2.5/weather?q=", "/data/2.5/weather?q=+,GB", "/data/2.5/weather?units=metric"] {
            let response = await Self.get(endpoint, uri)
            #expect(response.status == 400, "\(uri)")
            #expect(response.body == ReplayResponse.nothingToGeocode.body, "\(uri)")
        }
    }

    @Test("a latitude that is missing, not a number or beyond ±90 is wrong")
    func wrongLatitude() async throws {
        let endpoint = try Self.endpoint()
        for lat in ["", "abc", "90.01", "-91", "nan", "0x10"] {
            let response = await Self.get(endpoint, "/data/2.5/weather?lat=\(lat)&lon=10")
            #expect(response.body == ReplayResponse.wrongLatitude.body, "lat=\(lat)")
        }
        #expect(await Self.get(endpoint, "/data/2.5/weather?lon=10").body == ReplayResponse.wrongLatitude.body)
    }

    @Test("a longitude that is missing, not a number or beyond ±180 is wrong")
    func wrongLongitude() async throws {
        let endpoint = try Self.endpoint()
        for lon in ["", "east", "180.5", "-1e3"] {
            let response = await Self.get(endpoint, "/data/2.5/weather?lat=10&lon=\(lon)")
            #expect(response.body == ReplayResponse.wrongLongitude.body, "lon=\(lon)")
        }
        #expect(await Self.get(endpoint, "/data/2.5/weather?lat=10").body == ReplayResponse.wrongLongitude.body)
    }

    @Test("a point near a recorded city is answered with that city")
    func pointNearCity() async throws {
        let body = try Self.json(await Self.get(try Self.endpoint(), "/data/2.5/weather?lat=44.35&lon=10.98"))
        #expect(body["name"] == .string("Zocca"))
    }

    @Test("a point far from every city gets synthesized weather at that point")
    func pointFarAway() async throws {
        let body = try Self.json(await Self.get(try Self.endpoint(), "/data/2.5/weather?lat=-33.5&lon=-120.25&units=metric"))
        #expect(body["name"] == .string(""))
        #expect(body["id"] == .integer(0))
        #expect(body["coord"]?["lat"]?.doubleValue == -33.5)
        #expect(body["coord"]?["lon"]?.doubleValue == -120.25)
    }

    @Test("with an API key, a request without it or with another is rejected")
    func wrongKey() async throws {
        let endpoint = try Self.endpoint(apiKey: "s3cret")
        for uri in ["/data/2.5/weather?q=Paris", "/data/2.5/weather?q=Paris&appid=other", "/data/2.5/weather?q=Paris&APPID=s3cret"] {
            let response = await Self.get(endpoint, uri)
            #expect(response.status == 401, "\(uri)")
            #expect(response.body == ReplayResponse.invalidAPIKey.body, "\(uri)")
        }
    }

    @Test("with an API key, a request carrying it is answered")
    func rightKey() async throws {
        let response = await Self.get(try Self.endpoint(apiKey: "s3cret"), "/data/2.5/weather?q=Paris&appid=s3cret")
        #expect(response.status == 200)
    }

    @Test("without an API key, any appid or none is accepted")
    func anyKey() async throws {
        let endpoint = try Self.endpoint()
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris").status == 200)
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris&appid=whatever").status == 200)
    }

    @Test("the API key is checked before a --fail rule applies")
    func keyBeforeFailure() async throws {
        let response = await Self.get(try Self.endpoint(apiKey: "k", failures: ["*=503"]), "/data/2.5/weather?q=Paris&appid=x")
        #expect(response.status == 401)
    }

    @Test("a --fail rule answers its outcome for the city it names")
    func failRule() async throws {
        let endpoint = try Self.endpoint(failures: ["paris=503"])
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris").status == 503)
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=London").status == 200)
    }

    @Test("a --fail rule covers a point that resolves to the city it names")
    func failRuleForPoint() async throws {
        let endpoint = try Self.endpoint(failures: ["Zocca,IT=429"], retryAfter: 7)
        let response = await Self.get(endpoint, "/data/2.5/weather?lat=44.34&lon=10.99")
        #expect(response.status == 429)
        #expect(response.extraHeaders.first { $0.name == "Retry-After" }?.value == "7")
    }

    @Test("a --fail rule covers a city that is not recorded")
    func failRuleForUnknownCity() async throws {
        let response = await Self.get(try Self.endpoint(failures: ["Atlantis=500"]), "/data/2.5/weather?q=Atlantis")
        #expect(response.status == 500)
    }

    @Test("a rule naming the city wins over a * rule, whatever their order")
    func specificBeatsStar() async throws {
        let endpoint = try Self.endpoint(failures: ["Paris=404", "*=503"])
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris").status == 404)
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Tokyo").status == 503)
    }

    @Test("of two rules naming the city, the last wins")
    func lastRuleWins() async throws {
        let endpoint = try Self.endpoint(failures: ["Paris=404", "paris,fr=garbage"])
        let response = await Self.get(endpoint, "/data/2.5/weather?q=Paris")
        #expect(response.body == ReplayResponse.garbage.body)
    }

    @Test("a --delay rule delays the answer for the city it names")
    func delayRule() async throws {
        let endpoint = try Self.endpoint(delays: ["Paris=150"])
        let clock = ContinuousClock()
        let delayed = await clock.measure { _ = await Self.get(endpoint, "/data/2.5/weather?q=Paris") }
        #expect(delayed >= .milliseconds(150))
    }

    @Test("a --delay of 0 for the city overrides a * delay")
    func zeroDelayOverridesStar() async throws {
        let rules = try ["*=3600000", "Paris=0"].map { try #require(DelayRule(argument: $0)) }
        let chosen = { (city: String) in
            bestRule(rules, pattern: \.pattern, service: \.service, request: .openWeatherMap, cities: [(city, nil)])?.milliseconds
        }
        #expect(chosen("Paris") == 0 && chosen("London") == 3_600_000)
        // Paris is answered at all: with the hour of `*` it would wait until the suite's time limit.
        let endpoint = try Self.endpoint(delays: ["*=3600000", "Paris=0"])
        let response = await Self.get(endpoint, "/data/2.5/weather?q=Paris")
        #expect(try Self.json(response)["name"] == .string("Paris"))
    }

    @Test("only GET and HEAD are allowed on the weather path")
    func methods() async throws {
        let endpoint = try Self.endpoint()
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris", method: "HEAD").status == 200)
        let post = await Self.get(endpoint, "/data/2.5/weather?q=Paris", method: "POST")
        #expect(post.status == 405)
        #expect(post.body == ReplayResponse.methodNotAllowed.body)
    }

    @Test("another path is OpenWeatherMap's 404")
    func otherPath() async throws {
        let response = await Self.get(try Self.endpoint(), "/data/2.5/onecall?q=Paris")
        #expect(response.status == 404)
        #expect(response.body == ReplayResponse.notFound.body)
    }

    @Test("/_stats counts weather requests under their normalized query")
    func stats() async throws {
        let endpoint = try Self.endpoint(apiKey: "k")
        _ = await Self.get(endpoint, "/data/2.5/weather?q=+LONDON+&appid=k")
        _ = await Self.get(endpoint, "/data/2.5/weather?q=London,GB&appid=k")
        _ = await Self.get(endpoint, "/data/2.5/weather?lat=44.340&lon=%2B10.99&appid=wrong")
        _ = await Self.get(endpoint, "/data/2.5/weather?lat=95&lon=1")
        _ = await Self.get(endpoint, "/other")
        let response = await Self.get(endpoint, "/_stats")
        #expect(response.status == 200)
        let stats = try Self.json(response)
        #expect(stats["requests"] == .integer(4))
        #expect(
            stats["by_query"]
                == .object([
                    "lat=44.34&lon=10.99": .integer(1),
                    "lat=95&lon=1": .integer(1),
                    "q=london": .integer(1),
                    "q=london,gb": .integer(1),
                ]))
        #expect(stats["deprecated_q"] == .integer(2))
    }

    @Test("/_stats deprecated_q counts the weather and forecast requests that carried q=, whatever their answer")
    func deprecatedQ() async throws {
        let endpoint = try Self.endpoint()
        _ = await Self.get(endpoint, "/data/2.5/weather?lat=44.34&lon=10.99")
        _ = await Self.get(endpoint, "/data/2.5/forecast?lat=44.34&lon=10.99")
        #expect(endpoint.stats.json["deprecated_q"] == .integer(0))
        _ = await Self.get(endpoint, "/data/2.5/weather?q=Zocca")
        _ = await Self.get(endpoint, "/data/2.5/forecast?q=Atlantis")
        _ = await Self.get(endpoint, "/data/2.5/weather?q=&lat=1&lon=2")
        _ = await Self.get(endpoint, "/data/2.5/weather?q=Zocca", method: "POST")
        #expect(endpoint.stats.json["deprecated_q"] == .integer(3))
        #expect(endpoint.stats.json["requests"] == .integer(5))
    }
}
