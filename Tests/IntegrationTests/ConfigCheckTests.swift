import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// `weatherd --check-config` and configuration errors (exit 78).
@Suite("check-config")
struct ConfigCheckTests {
    @Test("unknown keys: exit 78 with FILE:LINE:COLUMN: key.path: unknown key for each, at the key")
    func unknownKeys() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "weatherd.toml",
            """
            cities = ["Seoul"]
            bogus = 1

            [openweathermap]
            api_key = "sekrit-config-key"
            colour = "blue"
            """)
        let result = try await runWeatherd(["--check-config", "--config", file])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("\(file):2:1: bogus: unknown key\n"), "\(result)")
        #expect(result.stderr.contains("\(file):6:1: openweathermap.colour: unknown key\n"), "\(result)")
        #expect(!result.stderr.contains("sekrit-config-key") && !result.stdout.contains("sekrit-config-key"))
    }

    @Test("a syntax error: exit 78 with FILE:LINE:COLUMN:")
    func syntaxError() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "weatherd.toml",
            """
            cities = ["Seoul"]
            [socket
            path = "/tmp/x.sock"
            """)
        let result = try await runWeatherd(["--check-config", "--config", file])
        #expect(result.status == 78, "\(result)")
        let prefix = "\(file):"
        let located = result.stderr.split(separator: "\n").contains { line in
            guard line.hasPrefix(prefix) else { return false }
            let parts = line.dropFirst(prefix.count).split(separator: ":", maxSplits: 2)
            return parts.count == 3 && Int(parts[0]) == 2 && Int(parts[1]) != nil
        }
        #expect(located, "expected \(file):2:COLUMN: …\n\(result)")
    }

    @Test("a file that is not UTF-8: exit 78 with FILE:LINE:COLUMN: at the first bad byte")
    func invalidUTF8() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("weatherd.toml")
        // Line 3 is `cities = ["Zürich` and then the byte 0xFC (ü in Latin-1): column 18.
        let bytes = Array("[openweathermap]\napi_key = \"k\"\ncities = [\"Zürich".utf8) + [0xFC] + Array("\"]\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let result = try await runWeatherd(["--check-config", "--config", file])
        #expect(result.status == 78, "\(result)")
        #expect(
            result.stderr
                == "\(file):3:18: expected UTF-8 text, found the byte 0xFC, which begins no valid UTF-8 sequence\n", "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
    }

    @Test("--config /dev/null is an empty file: every key at its default")
    func devNull() async throws {
        let result = try await runWeatherd(
            ["--check-config", "--config", "/dev/null"],
            environment: ["OWM_API_KEY": "env-key-0123456789"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains(#"cities = ["Seoul,KR", "London,GB"]"#), "\(result)")
        #expect(result.stdout.hasSuffix("# configuration OK (API key found)\n"), "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
    }

    @Test("the daemon itself refuses a bad configuration with 78")
    func daemonRefusesBadConfig() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("weatherd.toml", "refresh = 5\n[openweathermap]\napi_key = \"k\"\n")
        let result = try await runWeatherd(["--config", file, "--socket", directory.file("s.sock")])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("\(file):1:1: refresh:"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("s.sock")))
    }

    @Test("a valid configuration: exit 0, the effective configuration with the key redacted")
    func valid() async throws {
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: nil, cities: ["Seoul,KR"])
        let file = try setup.writeConfig()
        let result = try await runWeatherd(["--check-config", "--config", file])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("<redacted>"), "\(result)")
        #expect(!result.stdout.contains(setup.apiKey!) && !result.stderr.contains(setup.apiKey!), "\(result)")
        #expect(result.stdout.contains(#"cities = ["Seoul,KR"]"#), "\(result)")
        #expect(result.stdout.contains(setup.socketPath))

        // The key from the environment is redacted the same way.
        let fromEnvironment = try await runWeatherd(
            ["--check-config", "--config", try directory.write("nokey.toml", "cities = []\n")],
            environment: ["OWM_API_KEY": "env-key-0123456789"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment)")
        #expect(!fromEnvironment.stdout.contains("env-key-0123456789") && !fromEnvironment.stderr.contains("env-key-0123456789"))
    }

    @Test("no API key anywhere and OpenWeatherMap the only provider: exit 78 saying how to provide one")
    func noAPIKey() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "weatherd.toml",
            """
            cities = []
            [weather]
            providers = ["openweathermap"]
            [openweathermap]
            api_key_file = "\(directory.file("missing-key"))"
            """)
        let result = try await runWeatherd(["--check-config", "--config", file])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("OWM_API_KEY"), "\(result)")
        #expect(result.stderr.hasPrefix(file), "\(result)")

        // The daemon proper refuses too.
        let daemon = try await runWeatherd(["--config", file, "--socket", directory.file("s.sock")])
        #expect(daemon.status == 78, "\(daemon)")
        #expect(daemon.stderr.contains("OWM_API_KEY"))
    }

    @Test("no OpenWeatherMap key with Open-Meteo among the providers (the default): the configuration is fine")
    func noKeyOpenMeteo() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "weatherd.toml",
            """
            cities = []
            [openweathermap]
            api_key_file = "\(directory.file("missing-key"))"
            """)
        let result = try await runWeatherd(["--check-config", "--config", file])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("# configuration OK (no OpenWeatherMap API key: weather from Open-Meteo)\n"), "\(result)")
    }

    @Test("a deprecated key: exit 0, its warning on stderr, every value's origin on stdout")
    func deprecatedKeyAndOrigins() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "weatherd.toml",
            """
            cities = ["Oslo"]

            [weather]
            lang = "de"

            [openweathermap]
            api_key = "sekrit-config-key"
            units = "imperial"
            """)
        let socket = directory.file("s.sock")
        let result = try await runWeatherd(["--check-config", "--config", file, "--socket", socket])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stderr
                == "\(file):8:1: openweathermap.units: deprecated, moved to weather.units; it applies because weather.units is not set\n",
            "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        /// The line of `key = value`, which must end with the origin comment `# origin`.
        func expectLine(_ start: String, origin: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let line = lines.first { $0.hasPrefix(start + " ") }
            #expect(line?.hasSuffix("   # " + origin) == true, "\(start): \(result)", sourceLocation: sourceLocation)
        }
        expectLine(#"units = "imperial""#, origin: "from openweathermap.units (deprecated)")
        expectLine(#"lang = "de""#, origin: "set in \(file)")
        expectLine(#"cities = ["Oslo"]"#, origin: "set in \(file)")
        expectLine(#"refresh = "10m""#, origin: "default")
        expectLine(#"geocode_ttl = "30d""#, origin: "default")
        expectLine(#"providers = ["openweathermap", "open-meteo"]"#, origin: "default")
        expectLine(#"api_key = "<redacted>""#, origin: "set in \(file)")
        expectLine("path = \"\(socket)\"", origin: "from --socket")
        #expect(result.stdout.hasSuffix("# configuration OK (API key found)\n"), "\(result)")
        #expect(!result.stdout.contains("sekrit-config-key") && !result.stderr.contains("sekrit-config-key"))

        // The printed configuration reads back to the same values, without the deprecated key.
        let again = try ConfigLoader.parse(result.stdout, file: "stdout")
        #expect(again.warnings.isEmpty)
        #expect(again.config.weather.units == .imperial && again.config.weather.lang == "de")
        #expect(again.config.socket.path == socket)

        // A key from the environment says so.
        let fromEnvironment = try await runWeatherd(
            ["--check-config", "--config", try directory.write("nokey.toml", "cities = []\n")],
            environment: ["OWM_API_KEY": "env-key-0123456789"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment)")
        #expect(fromEnvironment.stderr.isEmpty, "\(fromEnvironment)")
        #expect(fromEnvironment.stdout.contains("# from the environment variable OWM_API_KEY\n"), "\(fromEnvironment)")
        #expect(!fromEnvironment.stdout.contains("env-key-0123456789"))
    }

    @Test("a bad provider: exit 78 with FILE: weather.providers: naming the valid ones")
    func badProvider() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "weatherd.toml",
            """
            [weather]
            providers = ["openweathermap", "met-no"]

            [openweathermap]
            api_key = "k"
            """)
        let result = try await runWeatherd(["--check-config", "--config", file])
        #expect(result.status == 78, "\(result)")
        #expect(
            result.stderr
                == "\(file):2:1: weather.providers: expected one of \"openweathermap\", \"open-meteo\", found \"met-no\" at [1]\n",
            "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
    }

    @Test("the daemon logs each deprecation warning at start and at each reload")
    func daemonLogsWarnings() async throws {
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: nil)
        setup.openWeatherMapLines = ["lang = \"de\""]
        let daemon = try await DaemonProcess.start(setup)
        let warning = "openweathermap.lang: deprecated, moved to weather.lang; it applies because weather.lang is not set"
        let atStart = try await daemon.process.waitForLine(containing: warning, on: \.stderr)
        #expect(atStart.contains("warning"), "\(atStart)")
        // FILE:LINE:COLUMN: at the key.
        let located = atStart.range(of: "\(setup.configPath):").map { atStart[$0.upperBound...] }
        #expect(located?.prefixMatch(of: #/\d+:\d+: openweathermap\.lang: /#) != nil, "\(atStart)")

        setup.weatherLines = ["lang = \"fr\""]
        try setup.writeConfig()
        daemon.process.send(SIGHUP)
        let atReload = try await daemon.process.waitForLine(
            containing: "openweathermap.lang: deprecated, moved to weather.lang; ignored because weather.lang is set", on: \.stderr)
        #expect(atReload.contains("reload: \(setup.configPath):"), "\(atReload)")
        #expect(atReload.contains("warning"), "\(atReload)")
        _ = try await daemon.process.waitForLine(containing: "configuration reloaded; changed: weather", on: \.stderr)

        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
    }
}
