import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

/// Open-Meteo's geocoding API, `GET /v1/search`.
@Suite("Open-Meteo: /v1/search")
struct OpenMeteoSearchTests {
    typealias E = WeatherEndpointTests
    typealias M = OpenMeteoForecastTests

    static func search(_ endpoint: WeatherEndpoint, _ query: String) async throws -> JSONValue {
        let response = await E.get(endpoint, "/v1/search?" + query)
        #expect(response.status == 200, "\(query): \(response.body)")
        return try E.json(response)
    }

    /// The places answered, each as `Name,Admin1,CC` (no admin1: `Name,CC`).
    static func places(_ endpoint: WeatherEndpoint, _ query: String) async throws -> [String] {
        let body = try await search(endpoint, query)
        return (body["results"]?.arrayValue ?? []).map { place in
            [place["name"]?.stringValue, place["admin1"]?.stringValue, place["country_code"]?.stringValue]
                .compactMap { $0 }.joined(separator: ",")
        }
    }

    static func recorded(_ file: String) throws -> JSONValue {
        try JSONValue.parse(try String(contentsOfFile: TestEnvironment.demoData + "/open-meteo/" + file, encoding: .utf8).utf8)
    }

    @Test("Enschede is the recorded answer, exactly; count keeps the best N")
    func recordedEnschede() async throws {
        let endpoint = try M.endpoint()
        let answer = try await Self.search(endpoint, "name=Enschede&count=2&language=en&format=json")
        #expect(answer == (try Self.recorded("search/enschede.json")))
        #expect(try await Self.search(endpoint, "name=+enschede+") == answer, "absent count: 10")
        let one = try await Self.search(endpoint, "name=Enschede&count=1")
        #expect(one["results"]?.arrayValue?.count == 1)
        #expect(one["results"]?.arrayValue?.first == answer["results"]?.arrayValue?.first)
        #expect(one["generationtime_ms"] == answer["generationtime_ms"])
        #expect(
            try await Self.places(endpoint, "name=Enschede&countryCode=nl") == [
                "Enschede,Overijssel,NL", "Enschede Airport Twente,Overijssel,NL",
            ])
    }

    @Test("an unknown name, a name known only elsewhere, or one of fewer than 2 characters: the recorded answer without results")
    func empty() async throws {
        let endpoint = try M.endpoint()
        let none = try Self.recorded("search-empty.json")
        #expect(none.objectValue?.keys == ["generationtime_ms"])
        for query in [
            "name=Atlantis", "name=Enschede&countryCode=DE", "name=Paris&countryCode=US", "name=B", "name=", "name=Springfield,%20Texas",
        ] {
            #expect(try await Self.search(endpoint, query) == none, "\(query)")
        }
    }

    @Test("without search-empty.json, an answer of the same shape")
    func emptyWithoutRecording() async throws {
        let directory = try TemporaryDirectory()
        let endpoint = try M.endpoint(data: directory.path)
        let body = try await Self.search(endpoint, "name=Atlantis")
        #expect(body.objectValue?.keys == ["generationtime_ms"])
        #expect(try await Self.search(endpoint, "name=Atlantis") == body, "the same each time")
        #expect(try await Self.places(endpoint, "name=Springfield&count=1") == ["Springfield,Illinois,US"], "the built-in places")
    }

    @Test("the places OpenWeatherMap's side knows, in Open-Meteo's shape with GeoNames ids")
    func catalogPlaces() async throws {
        let endpoint = try M.endpoint()
        let london = try #require(try await Self.search(endpoint, "name=London")["results"]?.arrayValue)
        #expect(london.map { $0["country_code"] } == ["GB", "CA", "US", "US", "US"])
        #expect(
            london[0]
                == .object([
                    "id": .integer(2_643_743), "name": "London", "latitude": .double(51.5085), "longitude": .double(-0.1257),
                    "elevation": .integer(25), "feature_code": "PPLC", "country_code": "GB", "timezone": "Europe/London",
                    "population": .integer(8_961_989), "country_id": .integer(2_635_167), "country": "United Kingdom", "admin1": "England",
                ]))
        #expect(london.dropFirst(2).map { $0["admin1"] } == ["Ohio", "Kentucky", "California"], "US states written out")
        #expect(london.dropFirst(2).map { $0["timezone"] } == ["America/New_York", "America/New_York", "America/Los_Angeles"])
        let paris = try await Self.search(endpoint, "name=Paris")
        let results = try #require(paris["results"]?.arrayValue)
        #expect(results[0]["id"] == .integer(2_988_507) && results[0]["country"] == "France")
        let berlin = try #require(try await Self.search(endpoint, "name=berlin")["results"]?.arrayValue)
        #expect(berlin.count == 1 && berlin[0]["id"] == .integer(2_950_159) && berlin[0]["timezone"] == "Europe/Berlin")
    }

    @Test(
        "as one types, as Open-Meteo: from three letters a name's beginning finds its places (whole names first); two find whole names only; OpenWeatherMap's geocoder whole names only"
    )
    func prefix() async throws {
        let endpoint = try M.endpoint()
        let springfields = [
            "Springfield,Illinois,US", "Springfield,Missouri,US", "Springfield,Massachusetts,US", "Springfield,Ohio,US",
            "Springfield,Oregon,US", "Springfield,Scotland,GB", "Springfield,Queensland,AU",
        ]
        #expect(try await Self.places(endpoint, "name=Spring") == springfields)
        #expect(try await Self.places(endpoint, "name=spr") == springfields)
        #expect(try await Self.places(endpoint, "name=Spring&countryCode=GB") == ["Springfield,Scotland,GB"])
        #expect(try await Self.places(endpoint, "name=Sp").isEmpty)
        #expect(try await Self.places(endpoint, "name=Lond").first == "London,England,GB")
        #expect(try await Self.places(endpoint, "name=Paris").first?.hasPrefix("Paris,") == true, "the whole name first")
        let owm = try E.json(await E.get(endpoint, "/geo/1.0/direct?q=Spring&limit=5"))
        #expect(owm == .array([]), "OpenWeatherMap's geocoder: whole names only")
    }

    @Test("Springfield: seven places, US states as admin1, stable ids shared with OpenWeatherMap's side")
    func springfield() async throws {
        let endpoint = try M.endpoint()
        #expect(
            try await Self.places(endpoint, "name=Springfield") == [
                "Springfield,Illinois,US", "Springfield,Missouri,US", "Springfield,Massachusetts,US", "Springfield,Ohio,US",
                "Springfield,Oregon,US", "Springfield,Scotland,GB", "Springfield,Queensland,AU",
            ])
        #expect(
            try await Self.places(endpoint, "name=Springfield&countryCode=US&count=2") == [
                "Springfield,Illinois,US", "Springfield,Missouri,US",
            ])
        #expect(try await Self.places(endpoint, "name=Springfield&countryCode=au") == ["Springfield,Queensland,AU"])
        let missouri = try #require(try await Self.search(endpoint, "name=Springfield&countryCode=US")["results"]?.arrayValue?[1])
        let place = try #require(endpoint.catalog.places.first { $0.state == "Missouri" })
        #expect(missouri["id"]?.intValue == place.cityID, "the synthetic id of OpenWeatherMap's side")
        #expect(missouri["timezone"] == "America/Chicago")
        let again = try #require(try await Self.search(try M.endpoint(), "name=Springfield&countryCode=US")["results"]?.arrayValue?[1])
        #expect(again == missouri)
    }

    @Test("a part after a comma narrows by state (name or code), region or country")
    func area() async throws {
        let endpoint = try M.endpoint()
        #expect(try await Self.places(endpoint, "name=Springfield,%20Missouri") == ["Springfield,Missouri,US"])
        #expect(try await Self.places(endpoint, "name=Springfield,MO") == ["Springfield,Missouri,US"])
        #expect(try await Self.places(endpoint, "name=Springfield,%20Scotland") == ["Springfield,Scotland,GB"])
        #expect(try await Self.places(endpoint, "name=Springfield,%20Australia") == ["Springfield,Queensland,AU"])
        #expect(try await Self.places(endpoint, "name=Enschede,%20Overijssel&count=1") == ["Enschede,Overijssel,NL"])
    }

    @Test("Enschede is known to OpenWeatherMap's geocoder too, and a point there is named after it")
    func enschedeOnBothSides() async throws {
        let endpoint = try M.endpoint()
        let owm = try E.json(await E.get(endpoint, "/geo/1.0/direct?q=Enschede,NL"))
        #expect(
            owm
                == .array([
                    .object(["name": "Enschede", "lat": .double(52.2183), "lon": .double(6.8958), "country": "NL", "state": "Overijssel"])
                ]))
        let weather = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=52.22&lon=6.9"))
        #expect(weather["name"] == "Enschede" && weather["sys"]?["country"] == "NL")
        let airport = try E.json(await E.get(endpoint, "/geo/1.0/direct?q=Enschede+Airport+Twente"))
        #expect(airport == .array([]), "not a populated place")
        let forecast = try await M.body(endpoint, "latitude=52.22&longitude=6.9&current=temperature_2m&timezone=auto")
        #expect(forecast["timezone"] == "Europe/Amsterdam" && forecast["elevation"]?.doubleValue == 45, "the place's")
    }

    @Test(
        "a missing name, a count out of 1...100 or not a number, another format: 400 with a reason",
        arguments: [
            ("count=3", "Value of type 'String' required for key 'name'."),
            ("name=Paris&count=0", "Parameter count must be between 1 and 100."),
            ("name=Paris&count=101", "Parameter count must be between 1 and 100."),
            ("name=Paris&count=many", "Value of type 'Int' required for key 'count'."),
            ("name=Paris&format=protobuf", "owm-replay answers format=json only, not format=protobuf"),
        ])
    func refused(query: String, reason: String) async throws {
        let response = await E.get(try M.endpoint(), "/v1/search?" + query)
        #expect(response.status == 400)
        #expect(try E.json(response) == JSONValue.object(["error": .bool(true), "reason": .string(reason)]))
    }

    @Test("GET and HEAD only")
    func methods() async throws {
        let endpoint = try M.endpoint()
        #expect(await E.get(endpoint, "/v1/search?name=Paris", method: "HEAD").status == 200)
        #expect(await E.get(endpoint, "/v1/search/?name=Paris").status == 200)
        #expect(await E.get(endpoint, "/v1/search?name=Paris", method: "DELETE").status == 405)
    }

    @Test("faults and rules naming the city cover a search for its name (and country code)")
    func faults() async throws {
        let endpoint = try M.endpoint(failures: ["open-meteo:Zocca=503"])
        #expect(await E.get(endpoint, "/v1/search?name=Zocca").status == 503)
        #expect(await E.get(endpoint, "/geo/1.0/direct?q=Zocca").status == 200, "the rule is for Open-Meteo")
        _ = await E.get(endpoint, "/_faults?city=London,GB&service=open-meteo&fault=429&retry_after=5", method: "POST")
        let limited = await E.get(endpoint, "/v1/search?name=London&countryCode=GB")
        #expect(limited.status == 429 && limited.extraHeaders.contains { $0.name == "Retry-After" && $0.value == "5" })
        #expect(await E.get(endpoint, "/v1/search?name=London").status == 200, "London,GB does not cover every London")
        _ = await E.get(endpoint, "/_faults?city=Enschede&service=open-meteo&fault=400", method: "POST")
        let bad = await E.get(endpoint, "/v1/search?name=Enschede")
        #expect(bad.status == 400)
        #expect(try E.json(bad) == JSONValue.object(["error": .bool(true), "reason": "Bad Request (a fault set at owm-replay)"]))
        #expect(
            await E.get(endpoint, "/v1/forecast?latitude=52.22&longitude=6.9&current=temperature_2m").status == 400,
            "a point in Enschede too")
        _ = await E.get(endpoint, "/_faults?city=*&service=open-meteo&fault=401", method: "POST")
        #expect(await E.get(endpoint, "/v1/search?name=Berlin").status == 401)
    }

    @Test("/_stats counts searches by name (and country code) under open_meteo")
    func stats() async throws {
        let endpoint = try M.endpoint()
        _ = await E.get(endpoint, "/v1/search?name=+Enschede+&count=1")
        _ = await E.get(endpoint, "/v1/search?name=enschede")
        _ = await E.get(endpoint, "/v1/search?name=London&countryCode=GB")
        _ = await E.get(endpoint, "/v1/search?name=Springfield,%20Missouri")
        _ = await E.get(endpoint, "/v1/search?name=Paris&count=0")
        _ = await E.get(endpoint, "/v1/search?name=Paris", method: "POST")  // 405: not counted
        let stats = try E.json(await E.get(endpoint, "/_stats"))
        #expect(stats["requests"] == .integer(0))
        #expect(stats["open_meteo"]?["search_requests"] == .integer(5))
        #expect(stats["open_meteo"]?["requests"] == .integer(5))
        #expect(
            stats["open_meteo"]?["by_query"]
                == .object([
                    "search:name=enschede": .integer(2),
                    "search:name=london&countryCode=gb": .integer(1),
                    "search:name=paris": .integer(1),
                    "search:name=springfield, missouri": .integer(1),
                ]))
    }
}
