import Testing

@testable import TestSupport
@testable import WeatherCore

/// One bound of one key: `toml` sets a value at (accepted) or just past (rejected) the bound.
struct RangeCase: Sendable, CustomTestStringConvertible {
    var toml: String
    var accepted: Bool
    var keyPath: String
    var testDescription: String { "\(toml) → \(accepted ? "accepted" : "rejected")" }

    static func ok(_ toml: String) -> RangeCase {
        RangeCase(toml: toml, accepted: true, keyPath: String(toml.prefix(while: { $0 != " " })))
    }

    static func bad(_ toml: String, at keyPath: String? = nil) -> RangeCase {
        RangeCase(toml: toml, accepted: false, keyPath: keyPath ?? String(toml.prefix(while: { $0 != " " })))
    }
}

@Suite("Configuration: ranges")
struct ConfigRangeTests {
    static let cases: [RangeCase] = [
        .ok(#"refresh = "1s""#), .bad(#"refresh = "999ms""#), .ok(#"refresh = "24h""#),
        .ok(#"openweathermap.timeout = "1ms""#), .bad(#"openweathermap.timeout = "0s""#),
        .ok(#"openweathermap.timeout = "5m""#), .bad(#"openweathermap.timeout = "300.001s""#),
        .ok("openweathermap.requests_per_minute = 1"), .bad("openweathermap.requests_per_minute = 0"),
        .ok("openweathermap.requests_per_minute = 6000"), .bad("openweathermap.requests_per_minute = 6001"),
        .ok(#"weather.cache_ttl = "0s""#), .ok(#"weather.cache_ttl = "48h""#), .ok(#"weather.cache_ttl = "400d""#),
        .ok(#"weather.geocode_ttl = "1m""#), .bad(#"weather.geocode_ttl = "59s""#), .bad(#"weather.geocode_ttl = "0s""#),
        .ok(#"weather.geocode_ttl = "365d""#), .bad(#"weather.geocode_ttl = "365.5d""#),
        .ok(#"weather.units = "standard""#), .bad(#"weather.units = "Metric""#),
        .ok(#"weather.lang = "pt-BR""#), .bad(#"weather.lang = """#),
        .bad(#"weather.lang = "e1""#), .bad(#"weather.lang = "en us""#),
        .ok(#"weather.providers = ["openweathermap"]"#), .ok(#"weather.providers = ["open-meteo"]"#),
        .bad("weather.providers = []"), .bad(#"weather.providers = ["open-meteo", "open-meteo"]"#),
        .bad(#"weather.providers = ["OpenWeatherMap"]"#), .bad(#"weather.providers = ["openweathermap", 1]"#),
        // The deprecated keys are checked as the keys they moved to.
        .ok(#"openweathermap.cache_ttl = "0s""#), .bad(#"openweathermap.cache_ttl = "-1s""#),
        .ok(#"openweathermap.units = "standard""#), .bad(#"openweathermap.units = "Metric""#),
        .ok(#"openweathermap.lang = "pt-BR""#), .bad(#"openweathermap.lang = "en us""#),
        .ok(#"openweathermap.base_url = "https://example.com/owm""#),
        .bad(#"openweathermap.base_url = "ftp://example.com""#), .bad(#"openweathermap.base_url = "https://""#),
        .bad(#"openweathermap.base_url = "example.com""#),
        .bad(#"openweathermap.api_key_file = """#), .bad(#"openweathermap.api_key = """#),
        .ok(#"cities = ["x"]"#), .bad(#"cities = [" "]"#, at: "cities[0]"),
        .bad(#"cities = ["a\tb"]"#, at: "cities[0]"),
        .ok("cities = [\"\(String(repeating: "a", count: 200))\"]"),
        .bad("cities = [\"\(String(repeating: "a", count: 201))\"]", at: "cities[0]"),
        .bad(#"cities = ["London,GB", " london, gb "]"#, at: "cities[1]"),
        .ok("socket.path = \"/\(String(repeating: "s", count: 106))\""),
        .bad("socket.path = \"/\(String(repeating: "s", count: 107))\""),
        .bad(#"socket.path = """#),
        .ok(#"socket.mode = "0777""#), .bad(#"socket.mode = "1000""#), .bad(#"socket.mode = "0680""#),
        .bad(#"socket.mode = """#), .bad(#"socket.mode = "-660""#),
        .ok("socket.max_clients = 65536"), .bad("socket.max_clients = 65537"), .bad("socket.max_clients = 0"),
        .bad(#"gpsd.host = """#),
        .ok("gpsd.port = 1"), .bad("gpsd.port = 0"), .ok("gpsd.port = 65535"), .bad("gpsd.port = 65536"),
        .ok("gpsd.max_horizontal_error = 0.001"), .bad("gpsd.max_horizontal_error = 0"),
        .bad("gpsd.max_horizontal_error = -5"), .bad("gpsd.max_horizontal_error = inf"),
        .bad("gpsd.max_horizontal_error = nan"),
        .ok(#"gpsd.locate_timeout = "10m""#), .bad(#"gpsd.locate_timeout = "601s""#),
        .bad(#"gpsd.locate_timeout = "0s""#),
        .ok("gpsd.follow_distance = 0"), .bad("gpsd.follow_distance = -0.1"),
        .ok("location.max_horizontal_error = 0.001"), .bad("location.max_horizontal_error = 0"),
        .ok("location.report_max_horizontal_error = 0.001"), .bad("location.report_max_horizontal_error = 0"),
        .bad("location.report_max_horizontal_error = nan"),
        .ok(#"location.max_age = "7d""#), .bad(#"location.max_age = "0s""#), .bad(#"location.max_age = "169h""#),
        .ok(#"location.hold = "0s""#), .ok(#"location.hold = "1d""#), .bad(#"location.hold = "25h""#),
        .ok(#"location.locate_timeout = "10m""#), .bad(#"location.locate_timeout = "0s""#),
        .ok("location.follow_distance = 0"), .bad("location.follow_distance = -0.1"),
        .ok("geoclue.enabled = true"), .bad(#"geoclue.enabled = "yes""#),
        .ok(#"geoclue.accuracy = "country""#), .ok(#"geoclue.accuracy = "exact""#), .bad(#"geoclue.accuracy = "neighborhood""#),
        .bad(#"geoclue.accuracy = "City""#),
        .ok(#"geoclue.desktop_id = "org.example.Weather-d_2""#), .bad(#"geoclue.desktop_id = """#),
        .bad(#"geoclue.desktop_id = "weather d""#), .bad(#"geoclue.desktop_id = "a;b""#), .bad(#"geoclue.desktop_id = "[x]""#),
        .ok("geoclue.desktop_id = \"\(String(repeating: "d", count: 255))\""),
        .bad("geoclue.desktop_id = \"\(String(repeating: "d", count: 256))\""),
        .ok("geoclue.max_horizontal_error = 0.001"), .bad("geoclue.max_horizontal_error = 0"),
        .bad("geoclue.max_horizontal_error = nan"),
        .ok(#"region.debounce = "0s""#), .ok(#"region.debounce = "10s""#), .bad(#"region.debounce = "10001ms""#),
        .ok("region.around = 0"), .ok("region.around = 3"), .bad("region.around = -1"), .bad("region.around = 4"),
        .ok("region.concurrency = 1"), .ok("region.concurrency = 32"),
        .bad("region.concurrency = 0"), .bad("region.concurrency = 33"),
        .bad(#"state.directory = """#),
    ]

    @Test("each bound of each key is accepted at the bound and rejected past it", arguments: cases)
    func bound(_ range: RangeCase) {
        if range.accepted {
            #expect(throws: Never.self) { try ConfigLoader.parse(range.toml, file: configTestFile) }
        } else {
            let problems = configProblems(range.toml)
            #expect(problems.map(\.keyPath) == [range.keyPath])
            #expect(problems.first.map { $0.message.contains("found") } == true)
        }
    }

    @Test("an out-of-range value says what is allowed and what was found")
    func rangeMessages() {
        #expect(
            configProblemLines(#"openweathermap.timeout = "6m""#)
                == [#"test.toml:1:1: openweathermap.timeout: must be more than 0s and at most 5m, found "6m""#])
        #expect(
            configProblemLines(#"weather.geocode_ttl = "400d""#)
                == [#"test.toml:1:1: weather.geocode_ttl: must be at least 1m and at most 365d, found "400d""#])
        #expect(
            configProblemLines("gpsd.port = 70000")
                == ["test.toml:1:1: gpsd.port: must be between 1 and 65535, found 70000"])
        #expect(
            configProblemLines(#"socket.mode = "1777""#)
                == [#"test.toml:1:1: socket.mode: must be between "0000" and "0777", found "1777""#])
        #expect(
            configProblemLines(#"cities = ["Oslo", "oslo"]"#)
                == [#"test.toml:1:19: cities[1]: duplicate of cities[0] ("Oslo"), found "oslo""#])
    }
}
