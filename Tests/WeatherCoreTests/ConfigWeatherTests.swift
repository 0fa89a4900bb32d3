import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: the [weather] table")
struct ConfigWeatherTests {
    @Test("an empty file gives the defaults: both providers, metric, en, 10m, 30d")
    func defaults() throws {
        let weather = try parseConfig("").weather
        #expect(weather == WeatherConfig())
        #expect(weather.providers == [.openWeatherMap, .openMeteo])
        #expect(weather.units == .metric && weather.lang == "en")
        #expect(weather.cacheTTL == .seconds(600) && weather.geocodeTTL == .seconds(30 * 86_400))
        #expect(WeatherProviderName.allCases.map(\.rawValue) == ["openweathermap", "open-meteo"])
    }

    @Test("an unknown provider names the valid ones")
    func unknownProvider() {
        #expect(
            configProblemLines(#"weather.providers = ["openweathermap", "darksky"]"#) == [
                #"test.toml:1:1: weather.providers: expected one of "openweathermap", "open-meteo", found "darksky" at [1]"#
            ])
    }

    @Test("a provider name spelt another way is pointed to the right one")
    func misspeltProvider() {
        #expect(
            configProblemLines(#"weather.providers = ["Open_Meteo"]"#) == [
                #"test.toml:1:1: weather.providers: expected one of "openweathermap", "open-meteo", found "Open_Meteo" at [0]; did you mean "open-meteo"?"#
            ])
    }

    @Test("a repeated provider is a problem")
    func repeatedProvider() {
        #expect(
            configProblemLines(#"weather.providers = ["open-meteo", "openweathermap", "open-meteo"]"#) == [
                #"test.toml:1:1: weather.providers: expected each provider at most once, found "open-meteo" again at [2]"#
            ])
    }

    @Test("an empty provider list is a problem")
    func emptyProviders() {
        #expect(
            configProblemLines("weather.providers = []") == [
                #"test.toml:1:1: weather.providers: expected at least one provider ("openweathermap", "open-meteo"), found []"#
            ])
    }

    @Test("every bad element of the provider list is reported")
    func everyBadProvider() {
        #expect(
            configProblemLines(#"weather.providers = [1, "x", "openweathermap", "openweathermap"]"#) == [
                "test.toml:1:1: weather.providers: expected a provider name string, found an integer at [0]",
                #"test.toml:1:1: weather.providers: expected one of "openweathermap", "open-meteo", found "x" at [1]"#,
                #"test.toml:1:1: weather.providers: expected each provider at most once, found "openweathermap" again at [3]"#,
            ])
    }

    @Test("bad units are a problem naming the choices")
    func badUnits() {
        #expect(
            configProblemLines(#"weather.units = "kelvin""#) == [
                #"test.toml:1:1: weather.units: expected one of "standard", "metric", "imperial", found "kelvin""#
            ])
    }

    @Test(
        "bad durations are a problem",
        arguments: [
            (
                #"cache_ttl = "10""#,
                #"weather.cache_ttl: expected a duration string like "10m" (a number, then ms, s, m, h or d), found "10""#
            ),
            (
                #"geocode_ttl = "30 d""#,
                #"weather.geocode_ttl: expected a duration string like "10m" (a number, then ms, s, m, h or d), found "30 d""#
            ),
            (#"geocode_ttl = "30s""#, #"weather.geocode_ttl: must be at least 1m and at most 365d, found "30s""#),
            (#"geocode_ttl = "366d""#, #"weather.geocode_ttl: must be at least 1m and at most 365d, found "366d""#),
        ])
    func badDuration(line: String, expected: String) {
        #expect(configProblemLines("[weather]\n" + line) == ["test.toml:2:1: " + expected])
    }

    @Test("durations in days are read, and written back in days")
    func days() throws {
        let config = try parseConfig(#"weather.geocode_ttl = "7d""# + "\n" + #"weather.cache_ttl = "1.5d""#)
        #expect(config.weather.geocodeTTL == .seconds(7 * 86_400))
        #expect(config.weather.cacheTTL == .seconds(36 * 3600))
        let text = ConfigLoader.render(config)
        #expect(text.contains("\ngeocode_ttl = \"7d\"\n") && text.contains("\ncache_ttl = \"36h\"\n"), "\(text)")
    }
}

@Suite("Configuration: deprecated keys")
struct ConfigDeprecatedKeyTests {
    /// Each deprecated key, a value of it, and what that value is in the configuration.
    static let moved: [(old: String, new: String, value: String, check: @Sendable (DaemonConfig) -> Bool)] = [
        ("openweathermap.units", "weather.units", #""imperial""#, { $0.weather.units == .imperial }),
        ("openweathermap.lang", "weather.lang", #""de""#, { $0.weather.lang == "de" }),
        ("openweathermap.cache_ttl", "weather.cache_ttl", #""2m""#, { $0.weather.cacheTTL == .seconds(120) }),
        ("gpsd.max_horizontal_error", "location.max_horizontal_error", "50.0", { $0.location.maxHorizontalError == 50 }),
        ("gpsd.locate_timeout", "location.locate_timeout", #""5s""#, { $0.location.locateTimeout == .seconds(5) }),
        ("gpsd.follow", "location.follow", "true", { $0.location.follow }),
        ("gpsd.follow_distance", "location.follow_distance", "250.0", { $0.location.followDistance == 250 }),
    ]

    @Test("the schema lists exactly these deprecated keys, each moved to a key of [weather] or [location]")
    func schema() {
        #expect(ConfigSchema.movedKeys.map(\.path) == Self.moved.map(\.old))
        #expect(ConfigSchema.movedKeys.map(\.movedTo) == Self.moved.map(\.new))
        #expect(ConfigSchema.keys.allSatisfy { $0.movedTo == nil })
    }

    @Test("a deprecated key alone applies, with exactly one warning", arguments: 0..<7)
    func appliesAlone(index: Int) throws {
        let (old, new, value, check) = Self.moved[index]
        let loaded = try readConfig("\(old) = \(value)")
        #expect(check(loaded.config))
        #expect(
            loaded.warnings.map(\.description) == [
                "test.toml:1:1: \(old): deprecated, moved to \(new); it applies because \(new) is not set"
            ])
        #expect(loaded.warnings.first?.keyPath == old)
        #expect(loaded.origins[new] == .movedKey(old))
        #expect(loaded.origins[old] == .default, "the origin is the new key's")
    }

    @Test("a deprecated key beside its new key is ignored, with exactly one warning", arguments: 0..<7)
    func ignoredBesideNewKey(index: Int) throws {
        let (old, new, value, check) = Self.moved[index]
        let defaults = DaemonConfig()
        // The new key at its default value: the old key's value must not win.
        let newValue = try #require(ConfigSchema.key(new)?.written(defaults))
        let loaded = try readConfig("\(new) = \(newValue)\n\(old) = \(value)")
        #expect(!check(loaded.config))
        #expect(loaded.config == defaults)
        #expect(
            loaded.warnings.map(\.description) == [
                "test.toml:2:1: \(old): deprecated, moved to \(new); ignored because \(new) is set"
            ])
        #expect(loaded.origins[new] == .file(configTestFile))
    }

    @Test("the old key given after the new one in the file is ignored as well")
    func orderDoesNotMatter() throws {
        let loaded = try readConfig(
            """
            [openweathermap]
            units = "imperial"
            [weather]
            units = "standard"
            """)
        #expect(loaded.config.weather.units == .standard)
        #expect(loaded.warnings.count == 1)
    }

    @Test("all three deprecated keys: one warning each, in the order of the schema")
    func oneWarningEach() throws {
        let lines = try configWarningLines(
            """
            [weather]
            lang = "fr"
            [openweathermap]
            cache_ttl = "1m"
            lang = "de"
            units = "standard"
            """)
        #expect(
            lines == [
                "test.toml:6:1: openweathermap.units: deprecated, moved to weather.units; it applies because weather.units is not set",
                "test.toml:5:1: openweathermap.lang: deprecated, moved to weather.lang; ignored because weather.lang is set",
                "test.toml:4:1: openweathermap.cache_ttl: deprecated, moved to weather.cache_ttl; it applies because weather.cache_ttl is not set",
            ])
    }

    @Test("no deprecated key, no warning")
    func noWarning() throws {
        #expect(try configWarningLines(#"weather.units = "imperial""#).isEmpty)
        #expect(try configWarningLines("").isEmpty)
    }

    @Test("a deprecated key is checked like its new key, also when it is ignored")
    func checkedEvenWhenIgnored() {
        #expect(
            configProblemLines(#"openweathermap.units = "kelvin""#) == [
                #"test.toml:1:1: openweathermap.units: expected one of "standard", "metric", "imperial", found "kelvin""#
            ])
        #expect(
            configProblemLines("weather.lang = \"de\"\nopenweathermap.lang = 5") == [
                "test.toml:2:1: openweathermap.lang: expected a string, found an integer"
            ])
    }

    @Test("a reload that only moves a value to its new key changes nothing")
    func movingChangesNothing() throws {
        let old = try parseConfig(#"openweathermap.units = "imperial""#)
        let new = try parseConfig(#"weather.units = "imperial""#)
        #expect(ConfigChange(old: old, new: new, keys: ProviderKeys(openWeatherMap: Secret("k"))).changedKeys.isEmpty)
    }
}

@Suite("Configuration: origins of the values")
struct ConfigOriginTests {
    static let text = """
        cities = ["Oslo"]
        [weather]
        lang = "de"
        [openweathermap]
        api_key = "s3cr3t-KEY"
        units = "imperial"
        lang = "fr"
        """

    @Test("each key has the origin of its value: default, the file, or the deprecated key")
    func origins() throws {
        let origins = try readConfig(Self.text).origins
        #expect(origins["cities"] == .file(configTestFile))
        #expect(origins["refresh"] == .default)
        #expect(origins["weather.lang"] == .file(configTestFile))
        #expect(origins["weather.units"] == .movedKey("openweathermap.units"))
        #expect(origins["weather.cache_ttl"] == .default)
        #expect(origins["openweathermap.api_key"] == .file(configTestFile))
        #expect(ConfigOrigin.elsewhere("--socket").description == "from --socket")
    }

    @Test("the rendered text ends each key's line with its origin")
    func rendered() throws {
        let lines = ConfigLoader.render(try readConfig(Self.text)).split(separator: "\n").map(String.init)
        func line(_ start: String) -> String? { lines.first { $0.hasPrefix(start) } }
        #expect(line("cities = ")?.hasSuffix(#"["Oslo"]   # set in test.toml"#) == true, "\(lines)")
        #expect(line("refresh = ")?.hasSuffix("   # default") == true)
        #expect(line("units = ")?.hasSuffix("# from openweathermap.units (deprecated)") == true)
        #expect(line("units = ")?.hasPrefix(#"units = "imperial" "#) == true)
        #expect(line("lang = ")?.hasPrefix(#"lang = "de" "#) == true)
        #expect(line("lang = ")?.hasSuffix("# set in test.toml") == true)
        #expect(line("api_key = ")?.hasSuffix("# set in test.toml") == true)
        #expect(line("geocode_ttl = ")?.hasSuffix("# default") == true)
        // Every key has its line with its origin; no deprecated key is written.
        for key in ConfigSchema.keys {
            #expect(lines.contains { $0.hasPrefix("\(key.name) = ") && $0.contains("   # ") }, "\(key.path)")
        }
        #expect(lines.filter { $0.hasPrefix("units = ") || $0.hasPrefix("lang = ") }.count == 2)
        #expect(!lines.joined().contains("s3cr3t-KEY"))
    }

    @Test("the origin comments of a table start in one column")
    func aligned() throws {
        let text = ConfigLoader.render(try readConfig(Self.text))
        let weather = try #require(text.components(separatedBy: "\n\n").first { $0.hasPrefix("[weather]") })
        let hashes = Set(weather.split(separator: "\n").dropFirst().map { $0.distance(from: $0.startIndex, to: $0.lastIndex(of: "#")!) })
        #expect(hashes.count == 1, "\(weather)")
    }

    @Test("the rendered text with origins parses back to the same configuration, without warnings")
    func roundTrip() throws {
        let loaded = try readConfig(Self.text)
        let again = try readConfig(ConfigLoader.render(loaded))
        var expected = loaded.config
        expected.openWeatherMap.apiKey = Secret("<redacted>")
        #expect(again.config == expected)
        #expect(again.warnings.isEmpty)
        // Read back, every key is set in the file.
        for key in ConfigSchema.keys where key.written(again.config) != nil {
            #expect(again.origins[key.path] == .file(configTestFile), "\(key.path)")
        }
    }

    @Test("every configuration renders with origins and parses back", arguments: [false, true])
    func roundTripChanged(withOrigins: Bool) throws {
        var changed = ConfigRenderTests.changed
        changed.web.tileAttribution = "© Tiles # \"T\" #"  // a # in a string is no comment
        var origins = ConfigOrigins()
        for key in ConfigSchema.keys { origins[key.path] = .elsewhere("a test") }
        let text = withOrigins ? ConfigLoader.render(changed, origins: origins) : ConfigLoader.render(changed)
        #expect(text.contains("# from a test") == withOrigins)
        var parsed = try parseConfig(text)
        parsed.openWeatherMap.apiKey = nil
        var expected = changed
        expected.openWeatherMap.apiKey = nil
        #expect(parsed == expected)
    }
}
