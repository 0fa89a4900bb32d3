import Testing

@testable import TestSupport
@testable import WeatherCore

/// Every problem with a key is reported at the key's position, `FILE:LINE:COLUMN: key.path: message`,
/// as a syntax error is, so an editor can jump there.
@Suite("Configuration: problems at the key's position")
struct ConfigPositionTests {
    @Test("a wrong type: at the key, whose column counts Unicode scalars")
    func wrongType() {
        #expect(
            configProblemLines("# gpsd\n[gpsd]\n  port = \"2947\"\n")
                == [#"test.toml:3:3: gpsd.port: expected an integer, found a string"#])
        #expect(
            configProblemLines("cities = [\"Zürich\"] # ü\n[gpsd]\n\tenabled = \"yes\"")
                == ["test.toml:3:2: gpsd.enabled: expected a boolean (true or false), found a string"])
    }

    @Test("an unknown key, top-level and in a table; an unknown table at its header")
    func unknownKey() {
        #expect(
            configProblemLines("refresh = \"1m\"\ncolour = \"red\"\n\n[socket]\nmode = \"0600\"\nmaxClients = 3\n[logging]\nlevel = 1")
                == [
                    "test.toml:2:1: colour: unknown key",
                    "test.toml:7:2: logging: unknown key",
                    "test.toml:6:1: socket.maxClients: unknown key; did you mean `max_clients`?",
                ])
    }

    @Test("an out-of-range value, and an array's element at the element")
    func outOfRange() {
        #expect(
            configProblemLines("[region]\naround = 9\n")
                == ["test.toml:2:1: region.around: must be between 0 and 3, found 9"])
        #expect(
            configProblemLines("cities = [\n  \"London\",\n  \"\",   # empty\n]\n")
                == ["test.toml:3:3: cities[1]: expected a city name, found an empty string"])
        #expect(
            configProblemLines("[web]\nallowed_hosts = [\"ok.example\", 'bad host']")
                == [#"test.toml:2:32: web.allowed_hosts[1]: expected a host name like "weather.example", found "bad host""#])
    }

    @Test("nested tables: dotted keys, inline tables, a dotted header, quoted keys")
    func nested() {
        #expect(
            configProblemLines("weather.units = \"kelvin\"\n")
                == [#"test.toml:1:1: weather.units: expected one of "standard", "metric", "imperial", found "kelvin""#])
        #expect(
            configProblemLines("gpsd = { host = \"localhost\", port = 0 }\n")
                == ["test.toml:1:30: gpsd.port: must be between 1 and 65535, found 0"])
        #expect(configProblemLines("\n[socket.extra]\na = 1") == ["test.toml:2:2: socket.extra: unknown key"])
        #expect(configProblemLines("[state]\n\"my dir\" = \"x\"") == [#"test.toml:2:1: state."my dir": unknown key"#])
        #expect(configProblemLines("[ \"state\" ]\n'dir' = \"x\"").first?.hasPrefix("test.toml:2:1: state.dir: unknown key") == true)
        #expect(configProblemLines("region = [1]") == ["test.toml:1:1: region: expected a table, found an array"])
    }

    @Test("what comes before does not move it: multi-line strings, brackets and quotes in strings, comments")
    func afterStrings() {
        let text = [
            #"cities = ["a [b] = c", 'x # y']"#,
            "[web] # [gpsd]",
            #"tile_attribution = """"#,
            #"port = "x" ]"#,
            "[gpsd]",
            String(repeating: "\"", count: 3),
            "tile_url = '''",
            "'''",
            "max_clients = 0",
        ].joined(separator: "\n")
        #expect(configProblemLines(text) == ["test.toml:9:1: web.max_clients: must be between 1 and 65536, found 0"])
    }

    @Test("a deprecated key's warning is at the key too")
    func warning() throws {
        #expect(
            try configWarningLines("[openweathermap]\n\n   units = \"metric\"")
                == ["test.toml:3:4: openweathermap.units: deprecated, moved to weather.units; it applies because weather.units is not set"])
    }

    @Test("a problem with a key that is not in the file keeps FILE: key.path: message")
    func notInFile() {
        let problem = ConfigProblem(file: "a.toml", keyPath: "mqtt.password_file", message: "cannot read")
        #expect(problem.placed(by: TOMLKeyPositions("refresh = \"1m\"")).description == "a.toml: mqtt.password_file: cannot read")
        #expect(
            problem.placed(by: TOMLKeyPositions("[mqtt]\npassword_file = \"/x\"")).description
                == "a.toml:2:1: mqtt.password_file: cannot read")
    }
}
