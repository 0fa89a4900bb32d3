import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: the [open-meteo] table and its key")
struct ConfigOpenMeteoTests {
    @Test("every key is optional, with the contract's default")
    func defaults() throws {
        let table = try parseConfig("").openMeteo
        #expect(table == OpenMeteoConfig())
        #expect(table.baseURL == "https://api.open-meteo.com")
        #expect(table.geocodingURL == "https://geocoding-api.open-meteo.com")
        #expect(table.apiKeyFile == "")
        #expect(table.timeout == .seconds(10))
        #expect(table.requestsPerMinute == 600)
        #expect(table.requestsPerDay == 10_000)
        #expect(try parseConfig("[open-meteo]").openMeteo == OpenMeteoConfig())
    }

    @Test("every key is read")
    func allKeys() throws {
        let config = try parseConfig(
            #"""
            [open-meteo]
            base_url = "http://127.0.0.1:9000/"
            geocoding_url = "https://geo.example"
            api_key_file = "/etc/weatherd/open-meteo-key"
            timeout = "2s"
            requests_per_minute = 30
            requests_per_day = 2000
            """#)
        #expect(
            config.openMeteo
                == OpenMeteoConfig(
                    baseURL: "http://127.0.0.1:9000/", geocodingURL: "https://geo.example",
                    apiKeyFile: "/etc/weatherd/open-meteo-key", timeout: .seconds(2), requestsPerMinute: 30, requestsPerDay: 2000))
        #expect(config.openWeatherMap == OpenWeatherMapConfig(), "the other provider's table is its own")
    }

    static let ranges: [RangeCase] = [
        .ok(#"open-meteo.timeout = "1ms""#), .bad(#"open-meteo.timeout = "0s""#),
        .ok(#"open-meteo.timeout = "5m""#), .bad(#"open-meteo.timeout = "300.001s""#),
        .ok("open-meteo.requests_per_minute = 1"), .bad("open-meteo.requests_per_minute = 0"),
        .ok("open-meteo.requests_per_minute = 6000"), .bad("open-meteo.requests_per_minute = 6001"),
        .ok("open-meteo.requests_per_day = 1"), .bad("open-meteo.requests_per_day = 0"),
        .ok("open-meteo.requests_per_day = 10000000"), .bad("open-meteo.requests_per_day = 10000001"),
        .ok(#"open-meteo.base_url = "https://example.com/om""#), .bad(#"open-meteo.base_url = "ftp://example.com""#),
        .bad(#"open-meteo.base_url = "api.open-meteo.com""#), .bad(#"open-meteo.base_url = "https://""#),
        .ok(#"open-meteo.geocoding_url = "http://[::1]:8080""#), .bad(#"open-meteo.geocoding_url = """#),
        .ok(#"open-meteo.api_key_file = """#), .ok(#"open-meteo.api_key_file = "/k""#),
    ]

    @Test("each bound is accepted at the bound and rejected past it", arguments: ranges)
    func bound(_ range: RangeCase) {
        if range.accepted {
            #expect(throws: Never.self) { try ConfigLoader.parse(range.toml, file: configTestFile) }
        } else {
            let problems = configProblems(range.toml)
            #expect(problems.map(\.keyPath) == [range.keyPath])
            #expect(problems.first.map { $0.message.contains("found") } == true)
        }
    }

    @Test("a wrong type or an out-of-range value says what is allowed and what was found")
    func messages() {
        #expect(
            configProblemLines("open-meteo.timeout = 10")
                == [#"test.toml:1:1: open-meteo.timeout: expected a duration string like "10m", found an integer"#])
        #expect(
            configProblemLines(#"open-meteo.requests_per_day = "many""#)
                == [#"test.toml:1:1: open-meteo.requests_per_day: expected an integer, found a string"#])
        #expect(
            configProblemLines("open-meteo.requests_per_day = 0")
                == ["test.toml:1:1: open-meteo.requests_per_day: must be between 1 and 10000000, found 0"])
        #expect(
            configProblemLines("open-meteo.api_key_file = 1")
                == ["test.toml:1:1: open-meteo.api_key_file: expected a string, found an integer"])
        #expect(configProblemLines("open-meteo = 1") == ["test.toml:1:1: open-meteo: expected a table, found an integer"])
    }

    @Test("an unknown key is an error; an inline api_key is pointed at api_key_file, and not echoed")
    func unknownKeys() {
        let lines = configProblemLines(
            #"""
            [open-meteo]
            api_key = "om-s3cr3t"
            base_ur = "https://api.open-meteo.com"
            units = "metric"
            """#)
        #expect(
            lines == [
                "test.toml:2:1: open-meteo.api_key: unknown key; did you mean `api_key_file`?",
                "test.toml:3:1: open-meteo.base_ur: unknown key; did you mean `base_url`?",
                "test.toml:4:1: open-meteo.units: unknown key; did you mean `weather.units`?",
            ])
        #expect(!lines.joined().contains("om-s3cr3t"))
        #expect(
            configProblemLines("[openmeteo]\ntimeout = \"1s\"") == ["test.toml:1:2: openmeteo: unknown key; did you mean `open-meteo`?"])
    }

    @Test("the table is rendered after [openweathermap], parses back, and holds no key")
    func rendered() throws {
        let text = ConfigLoader.render(DaemonConfig())
        let openWeatherMap = try #require(text.range(of: "\n[openweathermap]\n"))
        let openMeteo = try #require(text.range(of: "\n[open-meteo]\n"))
        let socket = try #require(text.range(of: "\n[socket]\n"))
        #expect(openWeatherMap.upperBound <= openMeteo.lowerBound && openMeteo.upperBound <= socket.lowerBound)
        let table = String(text[openMeteo.upperBound..<socket.lowerBound])
        #expect(
            table == """
                base_url = "https://api.open-meteo.com"
                geocoding_url = "https://geocoding-api.open-meteo.com"
                api_key_file = ""
                timeout = "10s"
                requests_per_minute = 600
                requests_per_day = 10000

                """)
        #expect(try parseConfig(ConfigLoader.render(ConfigRenderTests.changed)).openMeteo == ConfigRenderTests.changed.openMeteo)
    }

    @Test("the key found is never rendered: the file's path is, the key is not")
    func keyNeverRendered() throws {
        var config = DaemonConfig()
        config.openMeteo.apiKeyFile = "/keys/om"
        let found = try #require(
            ConfigLoader.findOpenMeteoKey(
                config, file: "w.toml", environment: [:], readFile: { $0 == "/keys/om" ? "om-S3CR3T\n" : nil }))
        var origins = ConfigOrigins()
        origins["open-meteo.api_key_file"] = found.origin
        let text = ConfigLoader.render(config, origins: origins)
        #expect(text.contains(#"api_key_file = "/keys/om""#))
        #expect(!text.contains("om-S3CR3T"))
        #expect("\(found.key)" == "<redacted>")
    }

    @Test(
        "new URLs make fetched weather wrong; a new key file, timeout or budget does not",
        arguments: [
            (#"base_url = "http://127.0.0.1:1""#, true), (#"geocoding_url = "http://127.0.0.1:2""#, true),
            (#"api_key_file = "/k""#, false), (#"timeout = "1s""#, false),
            ("requests_per_minute = 5", false), ("requests_per_day = 5", false),
        ])
    func reload(_ line: String, invalidates: Bool) throws {
        let new = try parseConfig("[open-meteo]\n" + line)
        let change = ConfigChange(old: DaemonConfig(), new: new, keys: ProviderKeys(openMeteo: Secret("k")))
        #expect(change.changedKeys.count == 1)
        #expect(change.needingRestart.isEmpty)
        #expect(change.invalidatesWeather == invalidates)
        #expect(change.summary == ["open-meteo"])
    }

    // MARK: The commercial key

    static let files = ["/creds/open-meteo-api-key": "credential-key\n", "/keys/om": "  file-key \n"]

    static func find(
        keyFile: String = "/keys/om", environment: [String: String] = ["CREDENTIALS_DIRECTORY": "/creds"],
        files: [String: String] = files
    ) -> (key: String, origin: String)? {
        var config = DaemonConfig()
        config.openMeteo.apiKeyFile = keyFile
        return ConfigLoader.findOpenMeteoKey(config, file: "w.toml", environment: environment, readFile: { files[$0] })
            .map { ($0.key.revealed, $0.origin.description) }
    }

    @Test("the systemd credential comes first, as for the OpenWeatherMap key")
    func credentialFirst() throws {
        let found = try #require(Self.find())
        #expect(found.key == "credential-key")
        #expect(found.origin == "from the credential /creds/open-meteo-api-key")
        #expect(Self.find(environment: ["CREDENTIALS_DIRECTORY": "/creds/"])?.key == "credential-key")
    }

    @Test("api_key_file comes second, trimmed")
    func keyFileSecond() throws {
        let found = try #require(Self.find(environment: [:]))
        #expect(found.key == "file-key")
        #expect(found.origin == "from the file /keys/om (open-meteo.api_key_file)")
        #expect(Self.find(environment: ["CREDENTIALS_DIRECTORY": "/nowhere"])?.key == "file-key")
        #expect(Self.find(environment: ["CREDENTIALS_DIRECTORY": ""])?.key == "file-key")
    }

    @Test("no key is no key: the free API; empty values and unreadable files count as none")
    func none() {
        #expect(Self.find(keyFile: "", environment: [:]) == nil)
        #expect(Self.find(environment: [:], files: [:]) == nil)
        #expect(Self.find(files: ["/creds/open-meteo-api-key": " \n", "/keys/om": "\n"]) == nil)
        #expect(Self.find(files: ["/creds/open-meteo-api-key": "", "/keys/om": "k2"])?.key == "k2")
        // Neither the OpenWeatherMap key nor its variable is Open-Meteo's.
        #expect(
            Self.find(
                keyFile: "", environment: ["OWM_API_KEY": "owm", "CREDENTIALS_DIRECTORY": "/creds"],
                files: ["/creds/owm-api-key": "owm"]) == nil)
    }

    @Test("an api_key_file that gives no key is a warning naming the file, never a key")
    func keyFileProblem() {
        func problem(_ keyFile: String, _ files: [String: String], environment: [String: String] = [:]) -> String? {
            var config = DaemonConfig()
            config.openMeteo.apiKeyFile = keyFile
            return ConfigLoader.openMeteoKeyFileProblem(config, file: "w.toml", environment: environment, readFile: { files[$0] })?
                .description
        }
        #expect(
            problem("/keys/om", [:])
                == #"w.toml: open-meteo.api_key_file: cannot read "/keys/om"; Open-Meteo's free API is asked, without a key"#)
        #expect(
            problem("/keys/om", ["/keys/om": " \n"])
                == #"w.toml: open-meteo.api_key_file: "/keys/om" holds no key; Open-Meteo's free API is asked, without a key"#)
        #expect(problem("/keys/om", ["/keys/om": "k"]) == nil)
        #expect(problem("", [:]) == nil, "no file asked for")
        #expect(
            problem("/keys/om", ["/creds/open-meteo-api-key": "k"], environment: ["CREDENTIALS_DIRECTORY": "/creds"]) == nil,
            "the credential gave one")
    }
}
