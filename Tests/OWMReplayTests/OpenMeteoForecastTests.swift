import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

/// Open-Meteo's `GET /v1/forecast`, answered beside OpenWeatherMap's paths.
@Suite("Open-Meteo: /v1/forecast")
struct OpenMeteoForecastTests {
    typealias E = WeatherEndpointTests

    /// 2026-03-10T14:37:00Z, the present of the synthesized answers below.
    static let now = Date(timeIntervalSince1970: 1_773_153_420)
    /// Its midnight (GMT).
    static let midnight = 1_773_100_800

    static func endpoint(
        openMeteoAPIKey: String? = nil, apiKey: String? = nil, delays: [String] = [], failures: [String] = [],
        retryAfter: Int? = nil, data: String = TestEnvironment.demoData
    ) throws -> WeatherEndpoint {
        WeatherEndpoint(
            catalog: try WeatherCatalog(directory: data),
            apiKey: apiKey,
            delays: try delays.map { try #require(DelayRule(argument: $0)) },
            failures: try failures.map { try #require(FailRule(argument: $0)) },
            retryAfter: retryAfter,
            stats: ReplayStats(),
            openMeteoAPIKey: openMeteoAPIKey,
            now: { Self.now }
        )
    }

    /// The body of a 200 answer.
    static func body(_ endpoint: WeatherEndpoint, _ query: String) async throws -> JSONValue {
        let response = await E.get(endpoint, "/v1/forecast?" + query)
        #expect(response.status == 200, "\(query): \(response.body)")
        #expect(response.contentType.hasPrefix("application/json"))
        return try E.json(response)
    }

    /// The reason of a 400 answer.
    static func reason(_ endpoint: WeatherEndpoint, _ query: String) async throws -> String? {
        let response = await E.get(endpoint, "/v1/forecast?" + query)
        #expect(response.status == 400, "\(query)")
        let body = try E.json(response)
        #expect(body["error"] == .bool(true))
        return body["reason"]?.stringValue
    }

    static let berlin = "latitude=52.52&longitude=13.41"
    static let daemonCurrent =
        "temperature_2m,apparent_temperature,relative_humidity_2m,pressure_msl,wind_speed_10m,"
        + "wind_direction_10m,cloud_cover,weather_code,is_day"
    static let daemonHourly = daemonCurrent + ",precipitation_probability,rain,showers,snowfall,precipitation"

    static func doubles(_ value: JSONValue?) -> [Double?] {
        (value?.arrayValue ?? []).map { $0.doubleValue }
    }

    static func integers(_ value: JSONValue?) -> [Int] {
        (value?.arrayValue ?? []).compactMap { $0.intValue }
    }

    static func names(_ list: String) -> [String] {
        list.split(separator: ",").map { String($0) }
    }

    // MARK: - The recorded point

    @Test("near 52.52,13.41: the recorded Berlin answer, its current block and hourly steps re-expressed in GMT")
    func recordedBerlin() async throws {
        let endpoint = try Self.endpoint()
        let body = try await Self.body(
            endpoint, "latitude=52.53&longitude=13.44&current=temperature_2m,wind_speed_10m&hourly=temperature_2m")
        #expect(body["latitude"]?.doubleValue == 52.52 && body["longitude"]?.doubleValue == 13.419998, "the recorded grid point")
        #expect(body["elevation"]?.doubleValue == 44.8125)
        #expect(body["generationtime_ms"]?.doubleValue == 2.886056900024414)
        #expect(body["timezone"] == "GMT" && body["timezone_abbreviation"] == "GMT" && body["utc_offset_seconds"] == .integer(0))
        // Recorded at 23:00 Berlin time (CET, UTC+1): 22:00 GMT.
        #expect(body["current"]?["time"] == "2021-11-24T22:00")
        #expect(body["current"]?["interval"] == .integer(900))
        #expect(body["current"]?["temperature_2m"]?.doubleValue == 5.5)
        #expect(body["current"]?["wind_speed_10m"]?.doubleValue == 5.3)
        // GMT days: the steps of 2021-11-24 and -25 GMT the recording has (its first, 23:00 GMT
        // the day before, falls outside them).
        let times = try #require(body["hourly"]?["time"]?.arrayValue)
        #expect(times.count == 47)
        #expect(times.first == "2021-11-24T00:00" && times.last == "2021-11-25T22:00")
        #expect(Self.doubles(body["hourly"]?["temperature_2m"]).prefix(3) == [6.8, 6.8, 6.6])
        #expect(body["hourly_units"] == .object(["time": "iso8601", "temperature_2m": "°C"]))
    }

    @Test("in the recording's own timezone, its 48 steps as recorded; timezone=auto is that zone")
    func recordedInItsZone() async throws {
        let endpoint = try Self.endpoint()
        let recorded = try JSONValue.parse(
            try String(contentsOfFile: TestEnvironment.demoData + "/open-meteo/forecast/berlin.json", encoding: .utf8).utf8)
        for zone in ["Europe/Berlin", "auto"] {
            let body = try await Self.body(
                endpoint, Self.berlin + "&hourly=temperature_2m,wind_gusts_10m&current=temperature_2m&timezone=\(zone)")
            #expect(body["timezone"] == "Europe/Berlin" && body["utc_offset_seconds"] == .integer(3600), "\(zone)")
            #expect(body["hourly"]?["time"] == recorded["hourly"]?["time"], "\(zone)")
            #expect(body["hourly"]?["temperature_2m"] == recorded["hourly"]?["temperature_2m"], "\(zone)")
            #expect(Self.doubles(body["hourly"]?["wind_gusts_10m"]) == Self.doubles(recorded["hourly"]?["wind_gusts_10m"]))
            #expect(body["current"]?["time"] == "2021-11-24T23:00", "\(zone)")
        }
        let auto = try await Self.body(endpoint, Self.berlin + "&current=temperature_2m&timezone=auto")
        #expect(auto["timezone_abbreviation"] == "CET", "auto: the recorded abbreviation")
        let short = try await Self.body(endpoint, Self.berlin + "&hourly=temperature_2m&timezone=Europe/Berlin&forecast_days=1")
        #expect(short["hourly"]?["time"]?.arrayValue?.count == 24)
        let hours = try await Self.body(endpoint, Self.berlin + "&hourly=temperature_2m&timezone=auto&forecast_hours=3")
        #expect(hours["hourly"]?["time"] == .array(["2021-11-24T23:00", "2021-11-25T00:00", "2021-11-25T01:00"]), "from the current hour")
    }

    @Test(
        "what the recording lacks is made from what it has: current from the hourly step of its time, rain from precipitation, is_day from the sun"
    )
    func recordedCompleted() async throws {
        let endpoint = try Self.endpoint()
        let body = try await Self.body(
            endpoint,
            Self.berlin + "&current=\(Self.daemonCurrent),precipitation_probability&hourly=\(Self.daemonHourly)&timezone=Europe/Berlin")
        let current = try #require(body["current"]?.objectValue)
        // The hourly step of 23:00 (Berlin) has these.
        #expect(current["relative_humidity_2m"] == .integer(96))
        #expect(current["pressure_msl"]?.doubleValue == 1017.7)
        #expect(current["cloud_cover"] == .integer(83))
        #expect(current["apparent_temperature"]?.doubleValue == 3.4)
        #expect(current["is_day"] == .integer(0), "23:00 in November")
        let asked: [String] = ["time", "interval"] + Self.names(Self.daemonCurrent) + ["precipitation_probability"]
        #expect(current.keys == asked)

        let hourly = try #require(body["hourly"]?.objectValue)
        let askedHourly: [String] = ["time"] + Self.names(Self.daemonHourly)
        #expect(hourly.keys == askedHourly, "only the variables asked, in their order")
        let precipitation = Self.doubles(hourly["precipitation"]).map { $0! }
        let rain = Self.doubles(hourly["rain"]).map { $0! }
        let showers = Self.doubles(hourly["showers"]).map { $0! }
        let snowfall = Self.doubles(hourly["snowfall"]).map { $0! }
        for index in precipitation.indices {
            #expect(abs(rain[index] + showers[index] + snowfall[index] / 0.7 - precipitation[index]) < 0.011, "step \(index)")
        }
        #expect(precipitation[15] == 0.06 && rain[15] == 0.06, "weather code 61: rain")
        let probability = Self.doubles(hourly["precipitation_probability"]).map { $0! }
        #expect(probability.allSatisfy { (0...100).contains($0) })
        #expect(probability[15] >= 40, "it rains then")
        let isDay = Self.doubles(hourly["is_day"]).map { Int($0!) }
        // Sunrise 07:41, sunset 16:04 (Berlin time) on 2021-11-24.
        #expect(isDay[7] == 0 && isDay[8] == 1 && isDay[16] == 1 && isDay[17] == 0, "\(isDay)")
    }

    @Test("units: °F, m/s, mph, kn, inch; unixtime")
    func units() async throws {
        let endpoint = try Self.endpoint()
        let query = Self.berlin + "&current=temperature_2m,wind_speed_10m&hourly=precipitation,snowfall,wind_speed_10m"
        let body = try await Self.body(
            endpoint, query + "&temperature_unit=fahrenheit&wind_speed_unit=ms&precipitation_unit=inch&timeformat=unixtime")
        #expect(body["current"]?["temperature_2m"]?.doubleValue == 41.9)
        #expect(body["current"]?["wind_speed_10m"]?.doubleValue == 1.5)
        #expect(body["current"]?["time"] == .integer(1_637_791_200))
        #expect(
            body["current_units"]
                == .object([
                    "time": "unixtime", "interval": "seconds", "temperature_2m": "°F", "wind_speed_10m": "m/s",
                ]))
        #expect(
            body["hourly_units"] == .object(["time": "unixtime", "precipitation": "inch", "snowfall": "inch", "wind_speed_10m": "m/s"]))
        let times = Self.integers(body["hourly"]?["time"])
        #expect(times.count == 47 && times.first == 1_637_712_000 && zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 3600 })
        // 0.09 mm at 20:00 Berlin time on the 25th (19:00 GMT, step 43 here).
        #expect(Self.doubles(body["hourly"]?["precipitation"])[43] == 0.004)
        for (unit, speed) in [("mph", 3.3), ("kn", 2.9), ("kmh", 5.3)] {
            let converted = try await Self.body(endpoint, Self.berlin + "&current=wind_speed_10m&wind_speed_unit=\(unit)")
            #expect(converted["current"]?["wind_speed_10m"]?.doubleValue == speed, "\(unit)")
        }
        let legacy = try await Self.body(endpoint, Self.berlin + "&current=wind_speed_10m&windspeed_unit=kn")
        #expect(legacy["current_units"]?["wind_speed_10m"] == "kn", "the old name of the parameter")
    }

    // MARK: - Synthesized points

    @Test("elsewhere: made up, the same each time; hourly from midnight GMT for forecast_days days (default 7)")
    func synthesized() async throws {
        let endpoint = try Self.endpoint()
        let query = "latitude=-33.5&longitude=-120.25&current=\(Self.daemonCurrent)&hourly=\(Self.daemonHourly)"
        let body = try await Self.body(endpoint, query)
        #expect(try await Self.body(endpoint, query) == body)
        #expect(body["latitude"]?.doubleValue == -33.5 && body["longitude"]?.doubleValue == -120.25)
        #expect(body["current"]?["time"] == "2026-03-10T14:30", "the present quarter hour")
        let times = try #require(body["hourly"]?["time"]?.arrayValue)
        #expect(times.count == 7 * 24 && times.first == "2026-03-10T00:00" && times.last == "2026-03-16T23:00")
        let hourly = try #require(body["hourly"]?.objectValue)
        for variable in Self.daemonHourly.split(separator: ",") {
            let values = Self.doubles(hourly[String(variable)])
            #expect(values.count == 168 && values.allSatisfy { $0 != nil }, "\(variable)")
        }
        #expect(Self.doubles(hourly["relative_humidity_2m"]).allSatisfy { (0...100).contains($0!) })
        #expect(Self.doubles(hourly["is_day"]).allSatisfy { $0 == 0 || $0 == 1 })
        let codes = Set(Self.doubles(hourly["weather_code"]).map { Int($0!) })
        #expect(codes.isSubset(of: [0, 1, 2, 3, 45, 51, 61, 63, 71]), "\(codes)")

        let three = try await Self.body(endpoint, "latitude=-33.5&longitude=-120.25&hourly=temperature_2m&forecast_days=3")
        #expect(three["hourly"]?["time"]?.arrayValue?.count == 72)
        let hours = try await Self.body(
            endpoint, "latitude=-33.5&longitude=-120.25&hourly=temperature_2m&forecast_hours=5&timeformat=unixtime")
        #expect(
            hours["hourly"]?["time"] == .array((0..<5).map { .integer(Int64(Self.midnight + (14 + $0) * 3600)) }), "from the current hour")
        let none = try await Self.body(endpoint, "latitude=-33.5&longitude=-120.25&hourly=temperature_2m&forecast_days=0")
        #expect(none["hourly"]?["time"] == .array([]))
    }

    @Test("the point asked is moved to the nearest node of a 0.025° grid; its weather is the point's")
    func grid() async throws {
        let endpoint = try Self.endpoint()
        let body = try await Self.body(endpoint, "latitude=-33.51&longitude=-120.2399&current=temperature_2m")
        #expect(body["latitude"]?.doubleValue == -33.5 && body["longitude"]?.doubleValue == -120.25)
    }

    @Test("a synthesized point agrees with OpenWeatherMap's side: its current weather, and its hourly steps on the 3-hour grid")
    func agreesWithOpenWeatherMap() async throws {
        let endpoint = try Self.endpoint()
        for (lat, lon) in [(-33.5, -120.25), (48.85, 2.35), (39.8, -89.64)] {
            let point = "latitude=\(lat)&longitude=\(lon)"
            let meteo = try await Self.body(
                endpoint, point + "&current=temperature_2m,relative_humidity_2m,wind_speed_10m&hourly=temperature_2m&timeformat=unixtime")
            let catalog = endpoint.catalog
            let weather = catalog.weather(near: lat, lon, now: Self.now).body(in: .metric)
            let temperature = try #require(weather["main"]?["temp"]?.doubleValue)
            #expect(meteo["current"]?["temperature_2m"]?.doubleValue == (temperature * 10).rounded() / 10, "\(point)")
            #expect(meteo["current"]?["relative_humidity_2m"]?.intValue == weather["main"]?["humidity"]?.intValue)
            let speed = try #require(weather["wind"]?["speed"]?.doubleValue)
            #expect(meteo["current"]?["wind_speed_10m"]?.doubleValue == (speed * 36).rounded() / 10)

            let forecast = SynthesizedForecast.forecast(from: catalog.weather(near: lat, lon, now: Self.now), now: Self.now).body(
                in: .metric)
            let steps = try #require(forecast["list"]?.arrayValue)
            let times = Self.integers(meteo["hourly"]?["time"])
            let temperatures = Self.doubles(meteo["hourly"]?["temperature_2m"])
            var compared = 0
            for step in steps {
                guard let dt = step["dt"]?.intValue, let index = times.firstIndex(of: dt) else { continue }
                let owm = try #require(step["main"]?["temp"]?.doubleValue)
                #expect(abs(temperatures[index]! - owm) <= 0.051, "\(point) at \(dt)")
                compared += 1
            }
            #expect(compared > 30)
        }
    }

    @Test("daily: weather code, extremes and sums of each day's hours")
    func daily() async throws {
        let endpoint = try Self.endpoint()
        let body = try await Self.body(
            endpoint,
            "latitude=-33.5&longitude=-120.25&hourly=temperature_2m,precipitation,weather_code&forecast_days=2"
                + "&daily=weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,wind_speed_10m_max"
        )
        #expect(body["daily"]?["time"] == .array(["2026-03-10", "2026-03-11"]))
        #expect(body["daily_units"]?["temperature_2m_max"] == "°C" && body["daily_units"]?["weather_code"] == "wmo code")
        let temperatures = Self.doubles(body["hourly"]?["temperature_2m"]).map { $0! }
        let codes = Self.doubles(body["hourly"]?["weather_code"]).map { $0! }
        for day in 0..<2 {
            let hours = (day * 24)..<(day * 24 + 24)
            #expect(Self.doubles(body["daily"]?["temperature_2m_max"])[day] == temperatures[hours].max())
            #expect(Self.doubles(body["daily"]?["temperature_2m_min"])[day] == temperatures[hours].min())
            #expect(Self.doubles(body["daily"]?["weather_code"])[day] == codes[hours].max())
        }
        let berlin = try await Self.body(endpoint, Self.berlin + "&daily=temperature_2m_max&timezone=Europe/Berlin")
        #expect(
            Self.doubles(berlin["daily"]?["temperature_2m_max"]) == [7.6, 5.4, nil, nil, nil, nil, nil], "days without hourly steps: null")
    }

    // MARK: - Several points

    @Test("lists of points: a JSON array of the answers, in the order asked")
    func list() async throws {
        let endpoint = try Self.endpoint()
        let body = try await Self.body(
            endpoint, "latitude=-33.5,52.52,48.85&longitude=-120.25,13.41,2.35&current=temperature_2m&hourly=temperature_2m")
        let answers = try #require(body.arrayValue)
        #expect(answers.map { $0["latitude"]?.doubleValue } == [-33.5, 52.52, 48.85])
        #expect(answers[1]["current"]?["time"] == "2021-11-24T22:00", "the recording among them")
        #expect(
            answers[0] == (try await Self.body(endpoint, "latitude=-33.5&longitude=-120.25&current=temperature_2m&hourly=temperature_2m")))
        let repeated = try await Self.body(endpoint, "latitude=-33.5&latitude=52.52&longitude=-120.25,13.41&current=temperature_2m")
        #expect(repeated.arrayValue?.count == 2, "a repeated parameter is a list too")
        let one = try await Self.body(endpoint, "latitude=-33.5&longitude=-120.25&current=temperature_2m")
        #expect(one.objectValue != nil, "a single point: an object")
        let zones = try await Self.body(
            endpoint, "latitude=-33.5,52.52&longitude=-120.25,13.41&current=temperature_2m&timezone=GMT,Europe/Berlin")
        #expect(zones.arrayValue?.map { $0["timezone"] } == ["GMT", "Europe/Berlin"], "one timezone per point")
    }

    @Test(
        "lists of different lengths are 400",
        arguments: ["latitude=1,2&longitude=3", "latitude=1&longitude=3,4", "latitude=1,2&longitude=3,4&timezone=GMT,GMT,GMT"])
    func lengthMismatch(query: String) async throws {
        #expect(
            try await Self.reason(try Self.endpoint(), query)
                == "Parameter 'latitude' and 'longitude' must have the same number of elements")
    }

    // MARK: - Refused requests

    @Test("an unknown variable is 400 with Open-Meteo's reason, whichever block names it")
    func unknownVariable() async throws {
        let endpoint = try Self.endpoint()
        #expect(
            try await Self.reason(endpoint, Self.berlin + "&current=temperature_2m,foo")
                == "Cannot initialize WeatherVariable from invalid String value foo for key current")
        #expect(
            try await Self.reason(endpoint, Self.berlin + "&hourly=temperature_2m&hourly=Rain")
                == "Cannot initialize WeatherVariable from invalid String value Rain for key hourly")
        #expect(
            try await Self.reason(endpoint, Self.berlin + "&daily=sunrise")
                == "Cannot initialize DailyWeatherVariable from invalid String value sunrise for key daily")
    }

    @Test(
        "bad coordinates, units, days and timezones are 400 with Open-Meteo's reasons",
        arguments: [
            ("latitude=95&longitude=1", "Latitude must be in range of -90 to 90°. Given: 95.0."),
            ("latitude=1,-90.5&longitude=1,1", "Latitude must be in range of -90 to 90°. Given: -90.5."),
            ("latitude=1&longitude=180.5", "Longitude must be in range of -180 to 180°. Given: 180.5."),
            ("latitude=north&longitude=1", "Value of type 'Float' required for key 'latitude'."),
            ("longitude=1", "Value of type 'Float' required for key 'latitude'."),
            ("latitude=1", "Value of type 'Float' required for key 'longitude'."),
            ("latitude=1,&longitude=1,2", "Value of type 'Float' required for key 'latitude'."),
            (
                "latitude=1&longitude=1&temperature_unit=kelvin",
                "Cannot initialize TemperatureUnit from invalid String value kelvin for key temperature_unit"
            ),
            (
                "latitude=1&longitude=1&wind_speed_unit=knots",
                "Cannot initialize WindspeedUnit from invalid String value knots for key wind_speed_unit"
            ),
            (
                "latitude=1&longitude=1&precipitation_unit=cm",
                "Cannot initialize PrecipitationUnit from invalid String value cm for key precipitation_unit"
            ),
            ("latitude=1&longitude=1&timeformat=rfc", "Cannot initialize Timeformat from invalid String value rfc for key timeformat"),
            ("latitude=1&longitude=1&forecast_days=17", "Forecast days is invalid. Allowed range 0 to 16. Given 17."),
            ("latitude=1&longitude=1&forecast_days=-1", "Forecast days is invalid. Allowed range 0 to 16. Given -1."),
            ("latitude=1&longitude=1&forecast_days=two", "Value of type 'Int' required for key 'forecast_days'."),
            ("latitude=1&longitude=1&past_days=93", "Past days is invalid. Allowed range 0 to 92. Given 93."),
            ("latitude=1&longitude=1&timezone=Mars/Olympus", "Invalid timezone"),
        ])
    func refused(query: String, reason: String) async throws {
        #expect(try await Self.reason(try Self.endpoint(), query) == reason)
    }

    @Test("GET and HEAD only; other /v1/ paths are Open-Meteo's 404")
    func methodsAndPaths() async throws {
        let endpoint = try Self.endpoint()
        #expect(await E.get(endpoint, "/v1/forecast?" + Self.berlin, method: "HEAD").status == 200)
        let post = await E.get(endpoint, "/v1/forecast?" + Self.berlin, method: "POST")
        #expect(post.status == 405)
        #expect(try E.json(post)["error"] == .bool(true))
        #expect(await E.get(endpoint, "/v1/forecast/?" + Self.berlin).status == 200)
        let other = await E.get(endpoint, "/v1/archive?" + Self.berlin)
        #expect(other.status == 404)
        #expect(try E.json(other) == JSONValue.object(["error": .bool(true), "reason": "Not Found"]))
    }

    // MARK: - Data

    @Test("without open-meteo/ in the data directory every point is synthesized")
    func noRecordings() async throws {
        let directory = try TemporaryDirectory()
        for file in ["paris.metric.json", "london.metric.json"] {
            try FileManager.default.copyItem(atPath: TestEnvironment.demoData + "/" + file, toPath: directory.file(file))
        }
        let endpoint = try Self.endpoint(data: directory.path)
        let body = try await Self.body(endpoint, Self.berlin + "&current=temperature_2m")
        #expect(body["current"]?["time"] == "2026-03-10T14:30")
        #expect(body["latitude"]?.doubleValue == 52.525)
    }

    @Test("a recorded forecast that is not one stops the start with the file named")
    func badRecording() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("open-meteo/forecast"), withIntermediateDirectories: true)
        _ = try directory.write("open-meteo/forecast/oslo.json", #"{"latitude":59.9,"longitude":10.7}"#)
        #expect {
            try WeatherCatalog(directory: directory.path)
        } throws: { error in
            (error as? CatalogError)?.file == "open-meteo/forecast/oslo.json"
        }
    }
}
