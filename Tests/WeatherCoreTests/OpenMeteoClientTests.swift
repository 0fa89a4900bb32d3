import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Open-Meteo client: URLs, the list form, places and error mapping")
struct OpenMeteoClientTests {
    static let apiKey = "om-0123456789SECRETKEY"

    static let current =
        "current=temperature_2m,apparent_temperature,relative_humidity_2m,pressure_msl,wind_speed_10m,"
        + "wind_direction_10m,cloud_cover,weather_code,is_day"
    static let hourly =
        "hourly=temperature_2m,apparent_temperature,relative_humidity_2m,pressure_msl,wind_speed_10m,"
        + "wind_direction_10m,cloud_cover,weather_code,precipitation_probability,rain,showers,snowfall,is_day"

    private func client(
        _ transport: any HTTPTransport = ScriptedTransport(), key: String? = nil, units: Units = .metric, lang: String = "en",
        baseURL: String = OpenMeteoConfig.defaultBaseURL, geocodingURL: String = OpenMeteoConfig.defaultGeocodingURL,
        now: Date = Fixture.fetchedAt, logger: LogRecorder? = nil
    ) -> OpenMeteoClient {
        OpenMeteoClient(
            transport: transport,
            endpoint: .init(
                baseURL: baseURL, geocodingURL: geocodingURL, apiKey: key.map(Secret.init), units: units, lang: lang, timeout: .seconds(10)),
            wallClock: { now }, logger: logger?.logger)
    }

    private static func response(_ status: Int, _ body: String, headers: [String: String] = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    /// One point's answer as weatherd asks it: unixtime, metric.
    private static func pointJSON(temperature: Double, code: Int = 3, isDay: Int = 1) -> String {
        #"{"latitude":0,"longitude":0,"utc_offset_seconds":0,"current_units":{"temperature_2m":"°C","wind_speed_10m":"m/s"},"#
            + #""current":{"time":1700000000,"temperature_2m":\#(temperature),"wind_speed_10m":2,"weather_code":\#(code),"is_day":\#(isDay)}}"#
    }

    @Test("the provider is open-meteo and asks up to 50 points per request")
    func identity() {
        #expect(client().provider == .openMeteo)
        #expect(client().maxPointsPerRequest == 50)
    }

    // MARK: URLs

    @Test("weather: the point's 0.01° cell with 2 decimals, the current variables, the units asked, GMT unix times; no key")
    func weatherURL() {
        #expect(
            client().url(for: .weather([Coordinate(lat: 52.5213, lon: 13.4061)]))
                == "https://api.open-meteo.com/v1/forecast?latitude=52.52&longitude=13.41&\(Self.current)"
                + "&temperature_unit=celsius&wind_speed_unit=ms&precipitation_unit=mm&timezone=GMT&timeformat=unixtime")
    }

    @Test("the list form: latitudes and longitudes as comma-separated lists, in the order given")
    func listURL() {
        let url = client().url(
            for: .weather([Coordinate(lat: 52.52, lon: 13.41), Coordinate(lat: 48.85, lon: 2.35), Coordinate(lat: -33.8688, lon: 151.2093)])
        )
        #expect(
            url.hasPrefix(
                "https://api.open-meteo.com/v1/forecast?latitude=52.52,48.85,-33.87&longitude=13.41,2.35,151.21&current="))
    }

    @Test("forecast: the hourly variables for 6 days")
    func forecastURL() {
        #expect(
            client(units: .imperial).url(for: .forecast(Coordinate(lat: 1, lon: -2)))
                == "https://api.open-meteo.com/v1/forecast?latitude=1.00&longitude=-2.00&\(Self.hourly)&forecast_days=6"
                + "&temperature_unit=fahrenheit&wind_speed_unit=mph&precipitation_unit=mm&timezone=GMT&timeformat=unixtime")
    }

    @Test(
        "units asked: metric and standard ask Celsius and m/s (no Kelvin upstream), imperial Fahrenheit and mph",
        arguments: [
            (Units.metric, "temperature_unit=celsius&wind_speed_unit=ms&"),
            (.standard, "temperature_unit=celsius&wind_speed_unit=ms&"),
            (.imperial, "temperature_unit=fahrenheit&wind_speed_unit=mph&"),
        ])
    func unitsAsked(_ units: Units, _ expected: String) {
        #expect(client(units: units).url(for: .weather([Coordinate(lat: 1, lon: 2)])).contains(expected))
        #expect(client(units: units).url(for: .forecast(Coordinate(lat: 1, lon: 2))).contains(expected))
    }

    @Test("geocoding: the name encoded, count, language and format; countryCode for a country code")
    func geocodingURL() {
        #expect(
            client().url(for: .places(PlaceQuery("São Paulo"), count: 5))
                == "https://geocoding-api.open-meteo.com/v1/search?name=S%C3%A3o%20Paulo&count=5&language=en&format=json")
        #expect(
            client(lang: "de").url(for: .places(PlaceQuery("Paris, fr"), count: 3))
                == "https://geocoding-api.open-meteo.com/v1/search?name=Paris&count=3&language=de&format=json&countryCode=FR")
        #expect(client().url(for: .places(PlaceQuery("a&apikey=x"), count: 1)).contains("name=a%26apikey%3Dx&"))
        #expect(client().url(for: .places(PlaceQuery("Paris, France"), count: 1)).hasSuffix("&format=json"), "a name is no code")
        #expect(client().url(for: .places(PlaceQuery("X"), count: 500)).contains("&count=100&"))
        #expect(client().url(for: .places(PlaceQuery("X"), count: 0)).contains("&count=1&"))
    }

    @Test("language is weather.lang without its region", arguments: [("zh_cn", "zh"), ("pt-BR", "pt"), ("EN", "en"), ("de", "de")])
    func language(_ lang: String, _ expected: String) {
        #expect(client(lang: lang).url(for: .places(PlaceQuery("Oslo"), count: 1)).contains("&language=\(expected)&"))
    }

    @Test("with a commercial key: apikey last, and the customer hosts in place of the default URLs")
    func commercialKey() {
        let c = client(key: Self.apiKey)
        #expect(
            c.url(for: .weather([Coordinate(lat: 1, lon: 2)])).hasPrefix("https://customer-api.open-meteo.com/v1/forecast?latitude=1.00&")
        )
        #expect(c.url(for: .weather([Coordinate(lat: 1, lon: 2)])).hasSuffix("&timeformat=unixtime&apikey=\(Self.apiKey)"))
        #expect(c.url(for: .forecast(Coordinate(lat: 1, lon: 2))).hasPrefix("https://customer-api.open-meteo.com/v1/forecast?"))
        #expect(
            c.url(for: .places(PlaceQuery("Oslo, NO"), count: 1))
                == "https://customer-geocoding-api.open-meteo.com/v1/search?name=Oslo&count=1&language=en&format=json&countryCode=NO&apikey=\(Self.apiKey)"
        )
        #expect(
            client(key: Self.apiKey, baseURL: "https://api.open-meteo.com/").url(for: .weather([Coordinate(lat: 1, lon: 2)]))
                .hasPrefix("https://customer-api.open-meteo.com/v1/forecast?"), "the default with a slash is the default")
    }

    @Test("an operator's URLs are kept, with the key; an empty key is no key")
    func operatorURLs() {
        let c = client(key: Self.apiKey, baseURL: "http://127.0.0.1:8090/om/", geocodingURL: "http://geo.internal")
        #expect(c.url(for: .weather([Coordinate(lat: 1, lon: 2)])).hasPrefix("http://127.0.0.1:8090/om/v1/forecast?latitude="))
        #expect(c.url(for: .weather([Coordinate(lat: 1, lon: 2)])).hasSuffix("&apikey=\(Self.apiKey)"))
        #expect(c.url(for: .places(PlaceQuery("Oslo"), count: 1)).hasPrefix("http://geo.internal/v1/search?name=Oslo&"))
        let empty = client(key: "")
        #expect(empty.endpoint.apiKey == nil)
        #expect(!empty.url(for: .weather([Coordinate(lat: 1, lon: 2)])).contains("apikey"))
        #expect(empty.url(for: .weather([Coordinate(lat: 1, lon: 2)])).hasPrefix("https://api.open-meteo.com/"))
    }

    @Test("redactedURL never contains the key; without a key it is the URL")
    func redacted() {
        let c = client(key: Self.apiKey)
        let requests: [OpenMeteoClient.Request] = [
            .weather([Coordinate(lat: 1, lon: 2), Coordinate(lat: 3, lon: 4)]), .forecast(Coordinate(lat: 1, lon: 2)),
            .places(PlaceQuery("Springfield, MO, US"), count: 100),
        ]
        for request in requests {
            let url = c.redactedURL(for: request)
            #expect(!url.contains(Self.apiKey))
            #expect(url.hasSuffix("&apikey=%3Credacted%3E"))
            #expect(url.replacingOccurrences(of: "%3Credacted%3E", with: Self.apiKey) == c.url(for: request))
            #expect(client().redactedURL(for: request) == client().url(for: request))
        }
    }

    // MARK: Weather

    @Test("one point: one request for exactly the URL, the answer at the point asked, stamped")
    func onePoint() async throws {
        let transport = ScriptedTransport()
        transport.on("/v1/forecast", .ok(try Fixture.berlinForecast()))
        let c = client(transport)
        let observation = try await c.fetch(at: OpenMeteoResponseTests.berlin)
        var expected = try OpenMeteoResponseTests.berlinObservation()
        expected.fetchedAt = Fixture.fetchedAt
        #expect(observation == expected)
        #expect(transport.requestedURLs == [c.url(for: .weather([OpenMeteoResponseTests.berlin]))])
    }

    @Test("several points: one request, the array split in the order asked, each at the point asked")
    func list() async throws {
        let transport = ScriptedTransport()
        transport.on(
            "/v1/forecast", .ok(Array("[\(Self.pointJSON(temperature: 1.5)),\(Self.pointJSON(temperature: 9, code: 0, isDay: 0))]".utf8)))
        let points = [Coordinate(lat: 52.52, lon: 13.41), Coordinate(lat: 48.85, lon: 2.35)]
        let c = client(transport)
        let observations = try await c.fetch(at: points)
        #expect(transport.requestedURLs == [c.url(for: .weather(points))])
        #expect(observations.map(\.coordinate) == points)
        #expect(observations.map(\.temperature) == [1.5, 9])
        #expect(observations.map(\.icon) == ["04d", "01n"])
        #expect(
            observations.allSatisfy {
                $0.provider == "open-meteo" && $0.fetchedAt == Fixture.fetchedAt && $0.cityID == nil && $0.name == nil
            })
        #expect(observations.map(\.featureID) == ["pt:52.5200,13.4100", "pt:48.8500,2.3500"])
    }

    @Test("no points ask nothing; more than 50 are asked 50 at a time, in order")
    func chunks() async throws {
        let transport = ScriptedTransport()
        let c = client(transport)
        #expect(try await c.fetch(at: []).isEmpty)
        #expect(transport.requestCount == 0)

        let points = (0..<51).map { Coordinate(lat: Double($0) / 2, lon: 0) }
        let fifty = "[" + (0..<50).map { Self.pointJSON(temperature: Double($0)) }.joined(separator: ",") + "]"
        transport.on("latitude=0.00,", .ok(Array(fifty.utf8)))
        transport.on("latitude=25.00&", .ok(Array(Self.pointJSON(temperature: 50).utf8)))
        let observations = try await c.fetch(at: points)
        #expect(transport.requestCount == 2)
        #expect(observations.map(\.temperature) == (0..<51).map(Double.init))
        #expect(observations.map(\.coordinate) == points)
    }

    @Test("an answer with another number of points than asked is unavailable")
    func wrongLength() {
        let points = [Coordinate(lat: 1, lon: 2), Coordinate(lat: 3, lon: 4)]
        func interpret(_ body: String) -> Result<[WeatherObservation], UpstreamError> {
            Result { () throws(UpstreamError) in try OpenMeteoClient.interpretWeather(Self.response(200, body), at: points, units: .metric)
            }
        }
        #expect(interpret("[\(Self.pointJSON(temperature: 1))]") == .failure(.unavailable("Open-Meteo answered 1 point for 2 asked")))
        #expect(interpret(Self.pointJSON(temperature: 1)) == .failure(.unavailable("Open-Meteo answered 1 point for 2 asked")))
        let three = "[" + Array(repeating: Self.pointJSON(temperature: 1), count: 3).joined(separator: ",") + "]"
        #expect(interpret(three) == .failure(.unavailable("Open-Meteo answered 3 points for 2 asked")))
        #expect(interpret("[]") == .failure(.unavailable("Open-Meteo answered 0 points for 2 asked")))
        #expect(
            interpret("[\(Self.pointJSON(temperature: 1)), {\"latitude\": 3}]")
                == .failure(.unavailable("Open-Meteo sent a response that is not weather JSON")))
    }

    @Test("units: standard answers Kelvin, imperial asks °F and mph and converts what did not come so")
    func units() async throws {
        let transport = ScriptedTransport()
        transport.on("/v1/forecast", .ok(try Fixture.berlinForecast()))
        let standard = try await client(transport, units: .standard).fetch(at: OpenMeteoResponseTests.berlin)
        #expect(standard.temperature == 278.65 && standard.units == .standard)
        let imperial = try await client(transport, units: .imperial).fetch(at: OpenMeteoResponseTests.berlin)
        #expect(imperial.temperature == 41.9 && imperial.windSpeed == 3.29 && imperial.units == .imperial)
        #expect(transport.requestedURLs.last?.contains("temperature_unit=fahrenheit&wind_speed_unit=mph") == true)
    }

    // MARK: Forecast

    @Test("a forecast: hourly steps from the one in progress by the wall clock, the place stamped")
    func forecast() async throws {
        let transport = ScriptedTransport()
        transport.on("hourly=", .ok(try Fixture.berlinForecast()))
        let now = Date(timeIntervalSince1970: 1_637_793_000)  // 2021-11-24T22:30:00Z
        let c = client(transport, now: now)
        let forecast = try await c.fetchForecast(at: OpenMeteoResponseTests.berlin)
        #expect(transport.requestedURLs == [c.url(for: .forecast(OpenMeteoResponseTests.berlin))])
        #expect(forecast.step == ForecastStep.oneHour)
        #expect(forecast.steps.count == 25)
        #expect(forecast.place.fetchedAt == now && forecast.place.provider == "open-meteo")
        #expect(forecast.place.coordinate == OpenMeteoResponseTests.berlin)
    }

    @Test("a forecast answer without hourly steps, or for several points, is unavailable")
    func notForecast() {
        func interpret(_ body: String) -> Result<WeatherForecast, UpstreamError> {
            Result { () throws(UpstreamError) in
                try OpenMeteoClient.interpretForecast(
                    Self.response(200, body), at: Coordinate(lat: 1, lon: 2), units: .metric, now: .distantPast)
            }
        }
        let expected = Result<WeatherForecast, UpstreamError>.failure(.unavailable("Open-Meteo sent a response that is not forecast JSON"))
        #expect(interpret(Self.pointJSON(temperature: 1)) == expected)
        #expect(interpret(#"[{"hourly":{"time":[]}},{"hourly":{"time":[]}}]"#) == expected)
        #expect(interpret("<html>") == expected)
    }

    // MARK: Places

    @Test("Enschede: the recorded places, at most limit")
    func enschede() async throws {
        let transport = ScriptedTransport()
        transport.on("/v1/search", .ok(try Fixture.enschedePlaces()))
        let c = client(transport)
        let places = try await c.places(PlaceQuery("Enschede"), limit: 5)
        #expect(places.map(\.geonamesID) == [2_756_071, 6_296_691])
        #expect(places.allSatisfy { $0.provider == "open-meteo" && $0.country == "NL" && $0.state == "Overijssel" })
        #expect(try await c.places(PlaceQuery("Enschede"), limit: 1).map(\.name) == ["Enschede"])
        #expect(
            transport.requestedURLs == [
                c.url(for: .places(PlaceQuery("Enschede"), count: 5)), c.url(for: .places(PlaceQuery("Enschede"), count: 1)),
            ])
    }

    @Test("an unknown name is no places, not an error")
    func unknownName() async throws {
        let transport = ScriptedTransport()
        transport.on("/v1/search", .ok(try Fixture.emptyPlaces()))
        #expect(try await client(transport).places(PlaceQuery("Xyzzyville"), limit: 5).isEmpty)
    }

    static let springfields = #"""
        {"results":[
          {"id":4409896,"name":"Springfield","latitude":37.21533,"longitude":-93.29824,"country_code":"US","country":"United States","admin1":"Missouri"},
          {"id":4250542,"name":"Springfield","latitude":39.80172,"longitude":-89.64371,"country_code":"US","country":"United States","admin1":"Illinois"},
          {"id":4951788,"name":"Springfield","latitude":42.10148,"longitude":-72.58981,"country_code":"US","country":"United States","admin1":"Massachusetts"},
          {"id":6162949,"name":"Springfield","latitude":49.9,"longitude":-97.0,"country_code":"CA","country":"Canada","admin1":"Missouri"},
          {"id":4409897,"name":"Springfield Township","latitude":37.1,"longitude":-93.3,"country_code":"US","country":"United States","admin1":"Missouri"},
          {"id":1,"name":"Springfield","latitude":38.0,"longitude":-90.0,"country_code":"US","country":"United States"}
        ]}
        """#

    @Test(
        "a US state keeps the places in it (admin1, by name or code), asking for 100 to choose from",
        arguments: [
            "Springfield, MO, US", "Springfield, Missouri, US", "springfield, mo, us",
        ])
    func usState(_ text: String) async throws {
        let transport = ScriptedTransport()
        transport.on("/v1/search", .ok(Array(Self.springfields.utf8)))
        let c = client(transport)
        let places = try await c.places(PlaceQuery(text), limit: 5)
        #expect(places.map(\.geonamesID) == [4_409_896, 4_409_897], "Missouri, US only, best first")
        #expect(places.allSatisfy { $0.state == "Missouri" && $0.country == "US" })
        #expect(transport.requestedURLs.first?.contains("&count=100&language=en&format=json&countryCode=US") == true)
        #expect(try await c.places(PlaceQuery(text), limit: 1).map(\.geonamesID) == [4_409_896])
    }

    @Test("a country code keeps its places; a country's name asks without countryCode and matches the name")
    func country() async throws {
        let transport = ScriptedTransport()
        transport.on("/v1/search", .ok(Array(Self.springfields.utf8)))
        let c = client(transport)
        #expect(try await c.places(PlaceQuery("Springfield, CA"), limit: 10).map(\.geonamesID) == [6_162_949])
        #expect(transport.requestedURLs.last?.contains("&count=10&language=en&format=json&countryCode=CA") == true)
        #expect(try await c.places(PlaceQuery("Springfield, canada"), limit: 10).map(\.geonamesID) == [6_162_949])
        #expect(transport.requestedURLs.last?.hasSuffix("&count=100&language=en&format=json") == true)
        #expect(try await c.places(PlaceQuery("Springfield"), limit: 10).count == 6)
    }

    // MARK: Errors

    private func weather(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Result<[WeatherObservation], UpstreamError> {
        Result { () throws(UpstreamError) in
            try OpenMeteoClient.interpretWeather(
                Self.response(status, body, headers: headers), at: [Coordinate(lat: 1, lon: 2)], units: .metric)
        }
    }

    private func places(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Result<[Place], UpstreamError> {
        Result { () throws(UpstreamError) in try OpenMeteoClient.interpretPlaces(Self.response(status, body, headers: headers)).map(\.place)
        }
    }

    @Test("400 with a reason is unavailable, never not found: the request was wrong, not the place")
    func badRequest() {
        let body = #"{"error":true,"reason":"Cannot initialize WeatherVariable from invalid String value tempeture_2m for key current"}"#
        let expected = UpstreamError.unavailable(
            "Open-Meteo refused the request: Cannot initialize WeatherVariable from invalid String value tempeture_2m for key current")
        #expect(weather(400, body) == .failure(expected))
        #expect(places(400, body) == .failure(expected))
        #expect(weather(400, "<html>Bad Request</html>") == .failure(.unavailable("Open-Meteo refused the request: no reason given")))
        #expect(weather(200, body) == .failure(expected), "an error body with 200 as well")
        let long = #"{"error":true,"reason":"\#(String(repeating: "x", count: 500))"}"#
        #expect(weather(400, long) == .failure(.unavailable("Open-Meteo refused the request: \(String(repeating: "x", count: 200))…")))
    }

    @Test("429 is rate limited, with Retry-After seconds when given")
    func rateLimited() {
        let body = #"{"error":true,"reason":"Minutely API request limit exceeded. Please try again in one minute."}"#
        #expect(weather(429, body, headers: ["retry-after": "30"]) == .failure(.rateLimited(retryAfter: .seconds(30))))
        #expect(places(429, body, headers: ["retry-after": " 7 "]) == .failure(.rateLimited(retryAfter: .seconds(7))))
        #expect(weather(429, body) == .failure(.rateLimited(retryAfter: nil)))
        #expect(weather(429, body, headers: ["retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"]) == .failure(.rateLimited(retryAfter: nil)))
    }

    @Test("401 and 403 (a commercial key refused) are unauthorized", arguments: [401, 403])
    func unauthorized(_ status: Int) {
        #expect(weather(status, #"{"error":true,"reason":"API key invalid"}"#) == .failure(.unauthorized))
        #expect(places(status, "") == .failure(.unauthorized))
    }

    @Test("5xx and other statuses are unavailable", arguments: [404, 500, 502, 503])
    func serverErrors(_ status: Int) {
        #expect(weather(status, "<html>\(status)</html>") == .failure(.unavailable("Open-Meteo answered HTTP \(status)")))
        #expect(places(status, "") == .failure(.unavailable("Open-Meteo answered HTTP \(status)")))
    }

    @Test("a 200 body that is not the JSON expected is unavailable")
    func garbage() {
        #expect(
            weather(200, "<html>captive portal</html>") == .failure(.unavailable("Open-Meteo sent a response that is not weather JSON")))
        #expect(weather(200, #"{"latitude":1}"#) == .failure(.unavailable("Open-Meteo sent a response that is not weather JSON")))
        #expect(places(200, "<html>captive portal</html>") == .failure(.unavailable("Open-Meteo sent a response that is not places JSON")))
        #expect(places(200, "[]") == .failure(.unavailable("Open-Meteo sent a response that is not places JSON")))
    }

    @Test("an error text never holds the key, even when Open-Meteo echoes it")
    func keyNeverInErrors() async {
        let transport = ScriptedTransport()
        transport.on("/v1/forecast", .status(400, #"{"error":true,"reason":"Unknown parameter apikey=\#(Self.apiKey)"}"#))
        transport.on("/v1/search", .failure(HTTPTransportError(.other, "TLS failure for key \(Self.apiKey)")))
        let c = client(transport, key: Self.apiKey)
        await #expect(throws: UpstreamError.unavailable("Open-Meteo refused the request: Unknown parameter apikey=<redacted>")) {
            try await c.fetch(at: Coordinate(lat: 1, lon: 2))
        }
        await #expect(throws: UpstreamError.unavailable("transport error: TLS failure for key <redacted>")) {
            try await c.places(PlaceQuery("Oslo"), limit: 1)
        }
    }

    @Test("a transport error is unavailable and keeps its kind; any other error says nothing of itself")
    func transportErrors() async {
        let transport = ScriptedTransport()
        transport.on("latitude=1.00", .failure(HTTPTransportError(.timedOut, "after 10 s")))
        await #expect(throws: UpstreamError.unavailable("timed out: after 10 s")) {
            try await client(transport).fetch(at: Coordinate(lat: 1, lon: 2))
        }
        let c = client(transport, key: Self.apiKey)
        transport.on(
            "latitude=3.00", .failure(OpenWeatherMapClientTests.LeakyError(url: c.url(for: .forecast(Coordinate(lat: 3, lon: 4))))))
        await #expect(throws: UpstreamError.unavailable("transport failure")) { try await c.fetchForecast(at: Coordinate(lat: 3, lon: 4)) }
        transport.on("name=Gone", .failure(CancellationError()))
        await #expect(throws: CancellationError.self) { try await c.places(PlaceQuery("Gone"), limit: 1) }
    }

    @Test("the debug log shows each request with the key redacted")
    func logs() async throws {
        let transport = ScriptedTransport()
        transport.on("/v1/forecast", .ok(try Fixture.berlinForecast()))
        let recorder = LogRecorder()
        _ = try await client(transport, key: Self.apiKey, logger: recorder).fetch(at: OpenMeteoResponseTests.berlin)
        let lines = recorder.recorded
        #expect(lines.count == 1)
        #expect(lines.first?.contains("GET https://customer-api.open-meteo.com/v1/forecast?latitude=52.52&") == true)
        #expect(lines.first?.contains("apikey=%3Credacted%3E -> 200") == true, "\(lines)")
        #expect(!lines.joined().contains(Self.apiKey))
    }

    // MARK: Reload

    @Test("a reload takes the new URLs, key, units, language and timeout")
    func reload() {
        let c = client()
        var new = DaemonConfig()
        new.weather.units = .imperial
        new.weather.lang = "fr"
        new.openMeteo.timeout = .seconds(3)
        c.apply(
            ConfigChange(old: DaemonConfig(), new: new, keys: ProviderKeys(openWeatherMap: Secret("owm"), openMeteo: Secret(Self.apiKey))))
        #expect(c.endpoint == OpenMeteoClient.Endpoint(apiKey: Secret(Self.apiKey), units: .imperial, lang: "fr", timeout: .seconds(3)))
        #expect(c.endpoint.forecastHost == "https://customer-api.open-meteo.com")
        new.openMeteo.baseURL = "http://127.0.0.1:9/"
        c.apply(ConfigChange(old: DaemonConfig(), new: new, keys: ProviderKeys(openWeatherMap: Secret("owm"))))
        #expect(c.endpoint.apiKey == nil && c.endpoint.baseURL == "http://127.0.0.1:9")
        #expect(c.url(for: .weather([Coordinate(lat: 1, lon: 2)])).hasPrefix("http://127.0.0.1:9/v1/forecast?"))
        #expect(OpenMeteoClient(transport: ScriptedTransport(), new, apiKey: nil).endpoint == c.endpoint)
    }
}
