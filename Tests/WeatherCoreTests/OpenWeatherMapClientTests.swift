import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("OpenWeatherMap client: URLs and error mapping")
struct OpenWeatherMapClientTests {
    static let apiKey = "0123456789abcdefSECRETKEY"

    private func client(
        _ transport: any HTTPTransport = ScriptedTransport(), baseURL: String = "https://api.openweathermap.org", units: Units = .metric
    ) -> OpenWeatherMapClient {
        OpenWeatherMapClient(
            transport: transport, baseURL: baseURL, apiKey: Secret(Self.apiKey), units: units, lang: "en", timeout: .seconds(10),
            wallClock: { Fixture.fetchedAt })
    }

    private func interpret(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Result<WeatherObservation, UpstreamError> {
        Result { () throws(UpstreamError) in
            try OpenWeatherMapClient.interpret(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)), units: .metric)
        }
    }

    // MARK: URLs

    @Test("a name goes to the Geocoding API: q, limit and appid, never to /data/2.5 as q=")
    func geocodingURL() {
        #expect(
            client().url(for: .places(PlaceQuery("London"), limit: 5))
                == "https://api.openweathermap.org/geo/1.0/direct?q=London&limit=5&appid=\(Self.apiKey)")
        #expect(
            client().url(for: .places(PlaceQuery(" Springfield , MO , US "), limit: 10))
                == "https://api.openweathermap.org/geo/1.0/direct?q=Springfield%2CMO%2CUS&limit=5&appid=\(Self.apiKey)",
            "parts trimmed; at most 5 places, OpenWeatherMap's limit")
    }

    @Test(
        "names are percent-encoded",
        arguments: [
            ("São Paulo", "q=S%C3%A3o%20Paulo&"),
            ("New York,US", "q=New%20York%2CUS&"),
            ("a&appid=x", "q=a%26appid%3Dx&"),
            ("x=y", "q=x%3Dy&"),
            ("50% + #1/?", "q=50%25%20%2B%20%231%2F%3F&"),
            ("Zürich-Oerlikon_~.", "q=Z%C3%BCrich-Oerlikon_~.&"),
        ])
    func percentEncoding(_ city: String, _ expected: String) {
        let url = client().url(for: .places(PlaceQuery(city), limit: 5))
        #expect(url.contains(expected), "\(url)")
        #expect(url.components(separatedBy: "appid=").count == 2, "exactly one appid")
    }

    @Test("weather and forecast URLs have lat and lon of the point's 0.01° cell with 2 decimals, units, lang and appid, in that order")
    func pointURL() {
        #expect(
            client(units: .imperial).url(for: .weather(Coordinate(lat: 51.508529, lon: -0.125740)))
                == "https://api.openweathermap.org/data/2.5/weather?lat=51.51&lon=-0.13&units=imperial&lang=en&appid=\(Self.apiKey)")
        #expect(client().url(for: .weather(Coordinate(lat: 44.34, lon: 10.99))).contains("?lat=44.34&lon=10.99&"))
        #expect(client().url(for: .weather(Coordinate(lat: -0.0012, lon: 0.0049))).contains("?lat=0.00&lon=0.00&"), "never -0.00")
        #expect(client().url(for: .weather(Coordinate(lat: -0.0051, lon: -179.996))).contains("?lat=-0.01&lon=-180.00&"))
        #expect(
            client().url(for: .forecast(Coordinate(lat: 1, lon: 2)))
                == "https://api.openweathermap.org/data/2.5/forecast?lat=1.00&lon=2.00&units=metric&lang=en&appid=\(Self.apiKey)")
    }

    @Test("base_url may end with a slash and may have a path")
    func baseURL() {
        let oslo = OpenWeatherMapClient.Request.places(PlaceQuery("Oslo"), limit: 1)
        #expect(client(baseURL: "http://127.0.0.1:8080/").url(for: oslo).hasPrefix("http://127.0.0.1:8080/geo/1.0/direct?q=Oslo&"))
        #expect(
            client(baseURL: "http://proxy/owm").url(for: .weather(Coordinate(lat: 1, lon: 2))).hasPrefix(
                "http://proxy/owm/data/2.5/weather?"))
    }

    @Test("redactedURL never contains the key")
    func redacted() {
        let c = client()
        let requests: [OpenWeatherMapClient.Request] = [
            .places(PlaceQuery("London"), limit: 5), .places(PlaceQuery("São Paulo"), limit: 1),
            .weather(Coordinate(lat: 1, lon: 2)), .forecast(Coordinate(lat: 1, lon: 2)),
        ]
        for request in requests {
            let url = c.redactedURL(for: request)
            #expect(!url.contains(Self.apiKey))
            #expect(url.hasSuffix("&appid=%3Credacted%3E"))
            #expect(url.replacingOccurrences(of: "%3Credacted%3E", with: Self.apiKey) == c.url(for: request))
        }
    }

    @Test("the transport is asked for exactly the request URL, with the configured timeout")
    func fetchesTheURL() async throws {
        let transport = ScriptedTransport()
        transport.on("/data/2.5/weather", .ok(try Fixture.london()))
        let c = client(transport)
        let london = Coordinate(lat: 51.5085, lon: -0.1257)
        let observation = try await c.fetch(at: london)
        #expect(observation == (try Fixture.fetchedLondonObservation()), "stamped with the time it was fetched")
        #expect(transport.requestedURLs == [c.url(for: .weather(london))])
    }

    // MARK: Geocoding

    @Test("the recorded Geocoding answer is five places named London, best first, with state only where given")
    func londonPlaces() async throws {
        let transport = ScriptedTransport()
        transport.on("/geo/1.0/direct", .ok(try Fixture.londonPlaces()))
        let places = try await client(transport).places(PlaceQuery("London"), limit: 5)
        #expect(places.map(\.country) == ["GB", "CA", "US", "US", "US"])
        #expect(places.map(\.state) == [nil, nil, "OH", "KY", "CA"])
        #expect(
            places.first
                == Place(name: "London", country: "GB", coordinate: Coordinate(lat: 51.5085, lon: -0.1257), provider: "openweathermap"))
    }

    @Test("an unknown name is no places: [] with 200, 404, or 400 Nothing to geocode")
    func unknownName() throws {
        for (status, body) in [
            (200, String(decoding: try Fixture.owm("geo_direct_empty.json"), as: UTF8.self)),
            (404, try Fixture.errorBody(404)), (400, try Fixture.errorBody(400)),
        ] {
            let places = try OpenWeatherMapClient.interpretPlaces(HTTPResponse(status: status, body: Array(body.utf8)))
            #expect(places.isEmpty)
        }
    }

    @Test("geocoding errors are mapped as weather errors are: 401, 429 with Retry-After, 5xx, garbage")
    func geocodingErrors() throws {
        func interpret(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Result<[Place], UpstreamError> {
            Result { () throws(UpstreamError) in
                try OpenWeatherMapClient.interpretPlaces(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)))
            }
        }
        #expect(interpret(401, try Fixture.errorBody(401)) == .failure(.unauthorized))
        #expect(
            interpret(429, try Fixture.errorBody(429), headers: ["retry-after": "7"]) == .failure(.rateLimited(retryAfter: .seconds(7))))
        #expect(interpret(503, "<html>503</html>") == .failure(.unavailable("OpenWeatherMap answered HTTP 503")))
        guard case .failure(.unavailable) = interpret(200, "<html>captive portal</html>") else {
            Issue.record("expected unavailable")
            return
        }
    }

    // MARK: Error mapping (errors.md)

    @Test("404 with errors.md's body is not found")
    func notFound404() throws {
        #expect(interpret(404, try Fixture.errorBody(404)) == .failure(.notFound(message: "city not found")))
    }

    @Test("400 Nothing to geocode (empty q) is not found")
    func nothingToGeocode() throws {
        #expect(interpret(400, try Fixture.errorBody(400)) == .failure(.notFound(message: "Nothing to geocode")))
    }

    @Test("401 with errors.md's body is unauthorized")
    func unauthorized() throws {
        #expect(interpret(401, try Fixture.errorBody(401)) == .failure(.unauthorized))
    }

    @Test("429 with errors.md's body is rate limited, with Retry-After parsed")
    func rateLimitedWithRetryAfter() throws {
        #expect(
            interpret(429, try Fixture.errorBody(429), headers: ["retry-after": "5"]) == .failure(.rateLimited(retryAfter: .seconds(5))))
        #expect(
            interpret(429, try Fixture.errorBody(429), headers: ["retry-after": " 120 "])
                == .failure(.rateLimited(retryAfter: .seconds(120))))
    }

    @Test("429 without Retry-After, or with an HTTP date, is rate limited without a delay")
    func rateLimitedWithoutRetryAfter() throws {
        #expect(interpret(429, try Fixture.errorBody(429)) == .failure(.rateLimited(retryAfter: nil)))
        #expect(
            interpret(429, try Fixture.errorBody(429), headers: ["retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"])
                == .failure(.rateLimited(retryAfter: nil)))
        #expect(interpret(429, try Fixture.errorBody(429), headers: ["retry-after": "-3"]) == .failure(.rateLimited(retryAfter: nil)))
    }

    @Test("an error body with HTTP 200 is mapped by its cod")
    func errorBodyWithStatus200() throws {
        #expect(interpret(200, try Fixture.errorBody(404)) == .failure(.notFound(message: "city not found")))
        #expect(interpret(200, try Fixture.errorBody(401)) == .failure(.unauthorized))
        #expect(interpret(200, try Fixture.errorBody(429)) == .failure(.rateLimited(retryAfter: nil)))
    }

    @Test("errors.md's 200 find-without-match body is not weather: unavailable")
    func findWithoutMatch() throws {
        guard case .failure(.unavailable) = interpret(200, try Fixture.errorBody(200)) else {
            Issue.record("expected unavailable")
            return
        }
    }

    @Test("500 and 502 with HTML bodies are unavailable", arguments: [500, 502, 503])
    func serverErrors(_ status: Int) {
        let result = interpret(status, "<html><head><title>\(status) Bad Gateway</title></head><body>nginx</body></html>")
        #expect(result == .failure(.unavailable("OpenWeatherMap answered HTTP \(status)")))
    }

    @Test("200 with HTML garbage is unavailable")
    func htmlWith200() {
        guard case .failure(.unavailable) = interpret(200, "<html><body>captive portal</body></html>") else {
            Issue.record("expected unavailable")
            return
        }
    }

    @Test("200 with the London fixture is weather")
    func success() throws {
        let body = String(decoding: try Fixture.london(), as: UTF8.self)
        #expect(interpret(200, body) == .success(try Fixture.londonObservation()))
    }

    // MARK: Transport failures

    @Test("a transport error is unavailable and keeps its kind")
    func transportErrors() async {
        let transport = ScriptedTransport()
        transport.on("q=Slow", .failure(HTTPTransportError(.timedOut, "after 10 s")))
        await #expect(throws: UpstreamError.unavailable("timed out: after 10 s")) {
            try await client(transport).places(PlaceQuery("Slow"), limit: 1)
        }
        transport.on("lat=1.00", .failure(HTTPTransportError(.connectionFailed, "connection refused")))
        await #expect(throws: UpstreamError.unavailable("connection failed: connection refused")) {
            try await client(transport).fetch(at: Coordinate(lat: 1, lon: 2))
        }
    }

    struct LeakyError: Error, Sendable, CustomStringConvertible {
        var url: String
        var description: String { "failed to fetch \(url)" }
    }

    @Test("any other transport error is unavailable without its text (it could hold the URL)")
    func foreignErrors() async {
        let transport = ScriptedTransport()
        let c = client(transport)
        transport.on("lat=", .failure(LeakyError(url: c.url(for: .weather(Coordinate(lat: 1, lon: 2))))))
        await #expect(throws: UpstreamError.unavailable("transport failure")) { try await c.fetch(at: Coordinate(lat: 1, lon: 2)) }
    }

    @Test("a cancelled transport request is a CancellationError, not unavailable")
    func cancellation() async {
        let transport = ScriptedTransport()
        transport.on("q=Gone", .failure(CancellationError()))
        await #expect(throws: CancellationError.self) { try await client(transport).places(PlaceQuery("Gone"), limit: 1) }
    }
}
