import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

@Suite("WeatherEndpoint: /geo/1.0/direct")
struct GeocodingEndpointTests {
    typealias E = WeatherEndpointTests

    /// The places answered for `query` (`q=…&…`), each as `Name,State,CC` (no state: `Name,CC`).
    static func places(_ endpoint: WeatherEndpoint, _ query: String) async throws -> [String] {
        let response = await E.get(endpoint, "/geo/1.0/direct?" + query)
        #expect(response.status == 200, "\(query)")
        let places = try #require(try E.json(response).arrayValue, "\(query)")
        return places.map { place in
            [place["name"]?.stringValue, place["state"]?.stringValue, place["country"]?.stringValue]
                .compactMap { $0 }.joined(separator: ",")
        }
    }

    @Test("London is the recorded answer: five places, best first, exactly as recorded")
    func recordedLondon() async throws {
        let endpoint = try E.endpoint()
        let response = await E.get(endpoint, "/geo/1.0/direct?q=London&limit=5&appid=any")
        #expect(response.status == 200)
        #expect(response.contentType.hasPrefix("application/json"))
        let recorded = try String(contentsOfFile: TestEnvironment.demoData + "/geo/london.json", encoding: .utf8)
        #expect(try E.json(response) == JSONValue.parse(recorded.utf8))
        #expect(try E.json(response).arrayValue?.first?["local_names"]?["fr"] == "Londres")
        #expect(
            try await Self.places(endpoint, "q=London") == [
                "London,GB", "London,CA", "London,OH,US", "London,KY,US", "London,CA,US",
            ])
        #expect(try await Self.places(endpoint, "q=+lONDON+") == Self.places(endpoint, "q=London"))
    }

    @Test("limit keeps the best N: absent 5, above 5 taken as 5")
    func limit() async throws {
        let endpoint = try E.endpoint()
        #expect(try await Self.places(endpoint, "q=London&limit=1") == ["London,GB"])
        #expect(try await Self.places(endpoint, "q=London&limit=3") == ["London,GB", "London,CA", "London,OH,US"])
        #expect(try await Self.places(endpoint, "q=London&limit=9").count == 5)
        #expect(try await Self.places(endpoint, "q=Springfield&limit=50").count == 5)
        #expect(try await Self.places(endpoint, "q=Springfield").count == 5)
    }

    @Test("a limit below 1 or not a whole number is 400", arguments: ["0", "-1", "abc", "", "2.5"])
    func wrongLimit(limit: String) async throws {
        let response = await E.get(try E.endpoint(), "/geo/1.0/direct?q=London&limit=\(limit)")
        #expect(response.status == 400)
        #expect(try E.json(response) == JSONValue.object(["cod": "400", "message": "wrong limit"]))
    }

    @Test("a country narrows the places to that country, in any case")
    func narrowedByCountry() async throws {
        let endpoint = try E.endpoint()
        #expect(try await Self.places(endpoint, "q=London,US") == ["London,OH,US", "London,KY,US", "London,CA,US"])
        #expect(try await Self.places(endpoint, "q=london,+gb+") == ["London,GB"])
        #expect(try await Self.places(endpoint, "q=London,CA") == ["London,CA"], "CA is Canada, not California")
        #expect(try await Self.places(endpoint, "q=London,FR") == [])
        #expect(try await Self.places(endpoint, "q=Springfield,GB") == ["Springfield,Scotland,GB"])
        #expect(try await Self.places(endpoint, "q=Springfield,au") == ["Springfield,Queensland,AU"])
    }

    @Test("a state narrows US places by USPS code or name, in any case")
    func narrowedByState() async throws {
        let endpoint = try E.endpoint()
        // The recorded answer has codes.
        for query in ["London,OH,US", "london,oh,us", "London,Ohio,US", "London, ohio , US"] {
            #expect(try await Self.places(endpoint, "q=\(query)") == ["London,OH,US"], "\(query)")
        }
        #expect(try await Self.places(endpoint, "q=London,CA,US") == ["London,CA,US"])
        #expect(try await Self.places(endpoint, "q=London,California,US") == ["London,CA,US"])
        // Springfield has names.
        for query in ["Springfield,MO,US", "springfield,mo,us", "Springfield,Missouri,US", "Springfield,MISSOURI,us"] {
            #expect(try await Self.places(endpoint, "q=\(query)") == ["Springfield,Missouri,US"], "\(query)")
        }
        #expect(try await Self.places(endpoint, "q=Springfield,OR,US") == ["Springfield,Oregon,US"])
        #expect(try await Self.places(endpoint, "q=Springfield,TX,US") == [])
        #expect(try await Self.places(endpoint, "q=London,MO,US") == [])
        // A catalog city has no state: it does not match one.
        #expect(try await Self.places(endpoint, "q=New+York,NY,US") == [])
        #expect(try await Self.places(endpoint, "q=New+York,US") == ["New York,US"])
    }

    @Test("a state is looked at for the US only")
    func stateOutsideUS() async throws {
        let endpoint = try E.endpoint()
        #expect(try await Self.places(endpoint, "q=Springfield,Scotland,GB") == ["Springfield,Scotland,GB"])
        #expect(try await Self.places(endpoint, "q=Springfield,MO,GB") == ["Springfield,Scotland,GB"])
        #expect(try await Self.places(endpoint, "q=London,OH,GB") == ["London,GB"])
    }

    @Test("Springfield is ambiguous: five places in five US states first, then other countries")
    func springfield() async throws {
        let endpoint = try E.endpoint()
        let body = try E.json(await E.get(endpoint, "/geo/1.0/direct?q=Springfield"))
        let first = try #require(body.arrayValue?.first?.objectValue)
        #expect(first.keys == ["name", "lat", "lon", "country", "state"])
        #expect(first == ["name": "Springfield", "lat": .double(39.799), "lon": .double(-89.644), "country": "US", "state": "Illinois"])
        #expect(
            try await Self.places(endpoint, "q=Springfield") == [
                "Springfield,Illinois,US", "Springfield,Missouri,US", "Springfield,Massachusetts,US",
                "Springfield,Ohio,US", "Springfield,Oregon,US",
            ])
        let all = try E.endpoint().catalog.places(matching: CityQuery("Springfield"))
        #expect(all.count == 7)
        #expect(Set(all.filter { $0.country == "US" }.compactMap(\.state)).count == 5)
        #expect(Set(all.map(\.country)) == ["US", "GB", "AU"])
        for place in all {
            #expect(place.state != nil, "every synthesized Springfield has a state")
        }
    }

    @Test("a city of the weather catalog is a place: its name, country and coordinates, no state")
    func catalogCity() async throws {
        let endpoint = try E.endpoint()
        let zocca = try E.json(await E.get(endpoint, "/geo/1.0/direct?q=Zocca"))
        #expect(zocca == JSONValue.array([.object(["name": "Zocca", "lat": .double(44.34), "lon": .double(10.99), "country": "IT"])]))
        #expect(zocca.arrayValue?.first?.objectValue?.keys == ["name", "lat", "lon", "country"])
        #expect(try await Self.places(endpoint, "q=Paris,FR") == ["Paris,FR"])
        #expect(try E.json(await E.get(endpoint, "/geo/1.0/direct?q=paris")).arrayValue?.first?["lat"] == .double(48.8534))
        #expect(try await Self.places(endpoint, "q=Reykjav%C3%ADk") == ["Reykjavik,IS"])
        #expect(try await Self.places(endpoint, "q=NEWYORK") == ["New York,US"])
    }

    @Test("an unknown name, or a known one in another country, is [] with status 200")
    func unknown() async throws {
        let endpoint = try E.endpoint()
        for query in ["q=Atlantis", "q=Paris,US", "q=Springfield,FR", "q=Atlantis&limit=1"] {
            let response = await E.get(endpoint, "/geo/1.0/direct?" + query)
            #expect(response.status == 200, "\(query)")
            #expect(response.body == "[]", "\(query)")
        }
    }

    @Test("an empty or absent q is nothing to geocode")
    func nothingToGeocode() async throws {
        let endpoint = try E.endpoint()
        for uri in ["/geo/1.0/direct?q=", "/geo/1.0/direct?q=+,GB", "/geo/1.0/direct?limit=5", "/geo/1.0/direct"] {
            let response = await E.get(endpoint, uri)
            #expect(response.status == 400, "\(uri)")
            #expect(response.body == #"{"cod":"400","message":"Nothing to geocode"}"#, "\(uri)")
        }
    }

    @Test("with an API key, a request without it or with another is 401; with it, answered")
    func apiKey() async throws {
        let endpoint = try E.endpoint(apiKey: "s3cret")
        for uri in ["/geo/1.0/direct?q=London", "/geo/1.0/direct?q=London&appid=other", "/geo/1.0/direct?q=Atlantis"] {
            let response = await E.get(endpoint, uri)
            #expect(response.status == 401, "\(uri)")
            #expect(response.body == ReplayResponse.invalidAPIKey.body, "\(uri)")
        }
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=London&appid=s3cret").status == 200)
    }

    @Test("a --fail rule naming a city applies to its geocoding requests")
    func failRule() async throws {
        let endpoint = try E.endpoint(failures: ["London=429", "Zocca,IT=503"], retryAfter: 3)
        let limited = await E.get(endpoint, "/geo/1.0/direct?q=London&limit=5")
        #expect(limited.status == 429)
        #expect(limited.extraHeaders.contains { $0.name == "Retry-After" && $0.value == "3" })
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=London,US").status == 429)
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=Zocca,IT").status == 503)
        // A rule with a country covers a query with that country: the query is what is matched.
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=Zocca").status == 200)
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=Paris").status == 200)
        #expect(await E.get(try E.endpoint(failures: ["*=garbage"]), "/geo/1.0/direct?q=Paris").body == ReplayResponse.garbage.body)
    }

    @Test("a fault set at run time for a city applies to its geocoding requests until cleared")
    func fault() async throws {
        let endpoint = try E.endpoint()
        #expect(await E.get(endpoint, "/_faults?city=paris&fault=503", method: "POST").status == 200)
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=Paris").status == 503)
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=Paris,FR&limit=1").status == 503)
        #expect(await E.get(endpoint, "/data/2.5/weather?q=Paris").status == 503, "and to its weather, as before")
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=London").status == 200)
        _ = await E.get(endpoint, "/_faults?city=*&fault=429&retry_after=2", method: "POST")
        let limited = await E.get(endpoint, "/geo/1.0/direct?q=London")
        #expect(limited.status == 429 && limited.extraHeaders.contains { $0.name == "Retry-After" && $0.value == "2" })
        _ = await E.get(endpoint, "/_faults", method: "DELETE")
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=Paris").status == 200)
    }

    @Test("a --delay rule naming a city delays its geocoding requests")
    func delayRule() async throws {
        let endpoint = try E.endpoint(delays: ["Zocca=120"])
        let clock = ContinuousClock()
        let delayed = await clock.measure { _ = await E.get(endpoint, "/geo/1.0/direct?q=Zocca") }
        #expect(delayed >= .milliseconds(120))
    }

    @Test("/_stats counts geocoding requests under geo: keys, and weather and forecast requests with q= as deprecated_q")
    func stats() async throws {
        let endpoint = try E.endpoint(apiKey: "k")
        _ = await E.get(endpoint, "/geo/1.0/direct?q=+LONDON+&limit=5&appid=k")
        _ = await E.get(endpoint, "/geo/1.0/direct?q=London,GB&appid=k")
        _ = await E.get(endpoint, "/geo/1.0/direct?q=Springfield,+MO+,US&appid=k")
        _ = await E.get(endpoint, "/geo/1.0/direct?q=Atlantis&appid=wrong")
        _ = await E.get(endpoint, "/geo/1.0/direct?appid=k")
        _ = await E.get(endpoint, "/geo/1.0/direct?q=London&appid=k", method: "POST")  // 405: not counted
        _ = await E.get(endpoint, "/data/2.5/weather?lat=51.5085&lon=-0.1257&appid=k")
        _ = await E.get(endpoint, "/data/2.5/forecast?lat=51.5085&lon=-0.1257&appid=k")
        #expect(endpoint.stats.json["deprecated_q"] == .integer(0))
        _ = await E.get(endpoint, "/data/2.5/weather?q=London&appid=k")
        _ = await E.get(endpoint, "/data/2.5/forecast?q=Paris&appid=wrong")
        _ = await E.get(endpoint, "/data/2.5/weather?q=&lat=1&lon=2&appid=k")
        let stats = try E.json(await E.get(endpoint, "/_stats"))
        #expect(stats.objectValue?.keys == ["requests", "connections", "deprecated_q", "wrong_key", "by_query", "open_meteo"])
        #expect(stats["requests"] == .integer(10))
        #expect(stats["deprecated_q"] == .integer(3))
        #expect(stats["wrong_key"] == .integer(2), "Atlantis and Paris came with another key")
        #expect(
            stats["by_query"]
                == .object([
                    "forecast:lat=51.5085&lon=-0.1257": .integer(1),
                    "forecast:q=paris": .integer(1),
                    "geo:q=": .integer(1),
                    "geo:q=atlantis": .integer(1),
                    "geo:q=london": .integer(1),
                    "geo:q=london,gb": .integer(1),
                    "geo:q=springfield,mo,us": .integer(1),
                    "lat=51.5085&lon=-0.1257": .integer(1),
                    "q=": .integer(1),
                    "q=london": .integer(1),
                ]))
    }

    @Test("only GET and HEAD are allowed; the path may end with a slash")
    func methods() async throws {
        let endpoint = try E.endpoint()
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=Paris", method: "HEAD").status == 200)
        #expect(await E.get(endpoint, "/geo/1.0/direct/?q=Paris").status == 200)
        for method in ["POST", "PUT", "DELETE"] {
            let response = await E.get(endpoint, "/geo/1.0/direct?q=Paris", method: method)
            #expect(response.status == 405, "\(method)")
            #expect(response.body == ReplayResponse.methodNotAllowed.body)
        }
        #expect(await E.get(endpoint, "/geo/1.0/reverse?lat=1&lon=2").status == 404)
    }

    @Test("over HTTP: the answer, and a fault for the city")
    func overHTTP() async throws {
        let replay = try await RunningReplay.start(try E.endpoint())
        do {
            let reply = try await replay.request("GET", "/geo/1.0/direct?q=Springfield,MO,US&limit=1")
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "application/json; charset=utf-8")
            #expect(try reply.json().arrayValue?.map { $0["state"] } == ["Missouri"])
            _ = try await replay.request("POST", "/_faults?city=Springfield&fault=not-json")
            let garbage = try await replay.request("GET", "/geo/1.0/direct?q=Springfield")
            #expect(garbage.status == 200 && garbage.text == ReplayResponse.garbage.body)
        } catch {
            try? await replay.stop()
            throw error
        }
        try await replay.stop()
    }
}
