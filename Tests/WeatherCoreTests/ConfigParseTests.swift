import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: reading values")
struct ConfigParseTests {
    @Test("empty text gives the defaults of the contract")
    func emptyTextGivesDefaults() throws {
        let config = try parseConfig("")
        #expect(config == DaemonConfig())
        #expect(config.cities == ["Seoul,KR", "London,GB"])
        #expect(config.refresh == .seconds(600))
        #expect(config.openWeatherMap.baseURL == "https://api.openweathermap.org")
        #expect(config.openWeatherMap.apiKeyFile == "/etc/weatherd/owm-api-key")
        #expect(config.openWeatherMap.apiKey == nil)
        #expect(config.weather.providers == [.openWeatherMap, .openMeteo])
        #expect(config.weather.units == .metric)
        #expect(config.weather.lang == "en")
        #expect(config.weather.cacheTTL == .seconds(600))
        #expect(config.weather.geocodeTTL == .seconds(30 * 86_400))
        #expect(config.openWeatherMap.timeout == .seconds(10))
        #expect(config.openWeatherMap.requestsPerMinute == 60)
        #expect(config.socket == SocketConfig(path: "/run/weatherd/weatherd.sock", mode: 0o660, maxClients: 256))
        #expect(config.gpsd == GPSDConfig(enabled: true, host: "127.0.0.1", port: 2947))
        #expect(
            config.location
                == LocationConfig(
                    maxHorizontalError: 100, reportMaxHorizontalError: 5000, maxAge: .seconds(120), hold: .seconds(30),
                    locateTimeout: .seconds(30), follow: false, followDistance: 1000))
        #expect(config.region == RegionConfig(debounce: .milliseconds(250), around: 1, concurrency: 4))
        #expect(config.state.directory == "/var/lib/weatherd")
    }

    @Test("comments and empty tables alone give the defaults")
    func emptyTablesGiveDefaults() throws {
        let loaded = try readConfig("# nothing\n[weather]\n[openweathermap]\n[socket]\n[gpsd]\n[location]\n[region]\n[state]\n")
        #expect(loaded == LoadedConfig())
    }

    @Test("the example config/weatherd.toml parses to exactly the defaults")
    func exampleFileEqualsDefaults() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("config/weatherd.toml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(try ConfigLoader.parse(text, file: path).config == DaemonConfig())
        let loaded = try ConfigLoader.load(path: path)
        #expect(loaded.config == DaemonConfig())
        #expect(loaded.warnings.isEmpty, "the example uses no deprecated key")
    }

    @Test("the example file says what a missing key does: weatherd serves from Open-Meteo, it does not refuse to start")
    func exampleFileOnMissingKey() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("config/weatherd.toml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let comments = text.split(separator: "\n").filter { $0.hasPrefix("#") }.joined(separator: " ")
        #expect(!comments.contains("does not start"), "no such claim about the key")
        #expect(comments.contains("Without a key OpenWeatherMap is skipped"))
        // As the file is, with no key found anywhere: a provider can serve, so weatherd starts.
        let config = try ConfigLoader.parse(text, file: path).config
        #expect(ConfigLoader.findAPIKey(config, file: path, environment: [:], readFile: { _ in nil }) == nil)
        #expect(throws: Never.self) { try ConfigLoader.checkProviders(config, keys: ProviderKeys(), file: path) }
    }

    @Test("the example file names every key of every table, in its table")
    func exampleFileNamesEveryKey() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOfFile: root.appendingPathComponent("config/weatherd.toml").path, encoding: .utf8)
        // The text of each table, from its header to the next one.
        let sections = text.components(separatedBy: "\n[")
        func section(_ table: String) -> String? {
            table.isEmpty ? sections.first : sections.first { $0.hasPrefix("\(table)]\n") }
        }
        for key in ConfigSchema.keys {
            let body = try #require(section(key.table), "no [\(key.table)]")
            #expect(body.contains("\n\(key.name) = ") || body.contains("\n# \(key.name) = "), "missing \(key.path)")
        }
    }

    @Test("top-level keys: cities (trimmed) and refresh")
    func topLevelKeys() throws {
        let config = try parseConfig(
            #"""
            cities = ["  Paris,FR ", "Tokyo"]
            refresh = "90s"
            """#)
        #expect(config.cities == ["Paris,FR", "Tokyo"])
        #expect(config.refresh == .seconds(90))
    }

    @Test("an empty cities array is allowed")
    func emptyCities() throws {
        #expect(try parseConfig("cities = []").cities == [])
    }

    @Test("[weather] keys are read")
    func weatherKeys() throws {
        let loaded = try readConfig(
            #"""
            [weather]
            providers = ["open-meteo"]
            units = "imperial"
            lang = "zh_cn"
            cache_ttl = "0s"
            geocode_ttl = "2d"
            """#)
        #expect(
            loaded.config.weather
                == WeatherConfig(
                    providers: [.openMeteo], units: .imperial, lang: "zh_cn", cacheTTL: .zero, geocodeTTL: .seconds(2 * 86_400)))
        #expect(loaded.warnings.isEmpty)
        #expect(
            try parseConfig(#"weather.providers = ["open-meteo", "openweathermap"]"#).weather.providers
                == [.openMeteo, .openWeatherMap])
    }

    @Test("[openweathermap] keys are read")
    func openWeatherMapKeys() throws {
        let config = try parseConfig(
            #"""
            [openweathermap]
            base_url = "http://127.0.0.1:8080"
            api_key_file = "/run/keys/owm"
            api_key = "abc123"
            timeout = "2.5s"
            requests_per_minute = 600
            """#)
        #expect(
            config.openWeatherMap
                == OpenWeatherMapConfig(
                    baseURL: "http://127.0.0.1:8080", apiKeyFile: "/run/keys/owm", apiKey: Secret("abc123"),
                    timeout: .milliseconds(2500), requestsPerMinute: 600))
        #expect(config.weather == WeatherConfig())
    }

    @Test("[socket] keys are read, mode as an octal string")
    func socketKeys() throws {
        let config = try parseConfig(
            #"""
            [socket]
            path = "weatherd.sock"
            mode = "0600"
            max_clients = 1
            """#)
        #expect(config.socket == SocketConfig(path: "weatherd.sock", mode: 0o600, maxClients: 1))
        #expect(try parseConfig("socket.mode = \"777\"").socket.mode == 0o777)
        #expect(try parseConfig("socket.mode = \"0\"").socket.mode == 0)
    }

    @Test("[gpsd] keys are read")
    func gpsdKeys() throws {
        let config = try parseConfig(
            #"""
            [gpsd]
            enabled = false
            host = "gps.local"
            port = 12947
            """#)
        #expect(config.gpsd == GPSDConfig(enabled: false, host: "gps.local", port: 12947))
    }

    @Test("[location] keys are read; integers are taken where floats are expected")
    func locationKeys() throws {
        let config = try parseConfig(
            #"""
            [location]
            max_horizontal_error = 25
            report_max_horizontal_error = 2000
            max_age = "5m"
            hold = "0s"
            locate_timeout = "1m"
            follow = true
            follow_distance = 0.5
            """#)
        #expect(
            config.location
                == LocationConfig(
                    maxHorizontalError: 25, reportMaxHorizontalError: 2000, maxAge: .seconds(300), hold: .zero,
                    locateTimeout: .seconds(60), follow: true, followDistance: 0.5))
    }

    @Test("[region] keys are read")
    func regionKeys() throws {
        let config = try parseConfig(
            #"""
            [region]
            debounce = "0ms"
            around = 3
            concurrency = 32
            """#)
        #expect(config.region == RegionConfig(debounce: .zero, around: 3, concurrency: 32))
    }

    @Test("[state] keys are read")
    func stateKeys() throws {
        #expect(try parseConfig("[state]\ndirectory = \"/tmp/wd\"").state == StateConfig(directory: "/tmp/wd"))
    }

    @Test("dotted keys and inline tables are the same as tables")
    func dottedKeysAndInlineTables() throws {
        let config = try parseConfig(
            #"""
            weather.units = "standard"
            gpsd = { port = 1 }
            location = { follow = true }
            """#)
        #expect(config.weather.units == .standard)
        #expect(config.gpsd.port == 1)
        #expect(config.location.follow)
    }

    @Test("a key that is not set keeps its default next to keys that are")
    func unsetKeysKeepDefaults() throws {
        let config = try parseConfig("[region]\naround = 2\n")
        var expected = DaemonConfig()
        expected.region.around = 2
        #expect(config == expected)
    }

    @Test("city keys (duplicates in `cities`, the same rule as the lookup cache) are case- and space-insensitive")
    func cityKeys() {
        #expect(LookupKey.normalize(city: " London ,  gb ") == LookupKey.normalize(city: "london,GB"))
        #expect(LookupKey.normalize(city: "New  York") == "new york")
        #expect(LookupKey.normalize(city: "New York") != LookupKey.normalize(city: "NewYork"))
    }
}

@Suite("Configuration: files")
struct ConfigFileTests {
    @Test("a configuration file that does not exist is one problem naming the file")
    func missingFile() {
        #expect {
            _ = try ConfigLoader.load(path: "/nonexistent/weatherd.toml")
        } throws: { error in
            (error as? ConfigError)?.description == "/nonexistent/weatherd.toml: cannot read the configuration file: no such file"
        }
    }

    @Test("problems of a loaded file name the file's path")
    func loadedFileNamedInProblems() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("weatherd-config-\(UInt64.random(in: 0...UInt64.max)).toml").path
        try "refresh = 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try ConfigLoader.load(path: path)
        } throws: { error in
            (error as? ConfigError)?.description == "\(path):1:1: refresh: expected a duration string like \"10m\", found an integer"
        }
    }
}

@Suite("Configuration: [alerts]")
struct ConfigAlertsTests {
    @Test("every key read, with its checks: a known provider, an http(s) URL, a contact without control characters")
    func alertKeys() throws {
        let config = try parseConfig(
            #"""
            [alerts]
            providers = ["nws"]
            nws_url = "http://127.0.0.1:8080/nws"
            contact = "ops@example.org"
            refresh = "90s"
            requests_per_minute = 30
            timeout = "3s"
            """#)
        #expect(
            config.alerts
                == AlertsConfig(
                    nwsURL: "http://127.0.0.1:8080/nws", contact: "ops@example.org", refresh: .seconds(90), requestsPerMinute: 30,
                    timeout: .seconds(3)))
        for (line, message) in [
            (#"providers = ["meteoalarm"]"#, "expected one of \"nws\""), (#"providers = []"#, "at least one"),
            (#"nws_url = "ftp://x""#, "alerts.nws_url"), ("contact = \"a\\nb\"", "control characters"),
            ("requests_per_minute = 0", "alerts.requests_per_minute"), (#"refresh = "0s""#, "alerts.refresh"),
        ] {
            let problems = configProblemLines("[alerts]\n" + line)
            #expect(problems.count == 1 && problems.allSatisfy { $0.contains(message) }, "\(line): \(problems)")
        }
    }
}
