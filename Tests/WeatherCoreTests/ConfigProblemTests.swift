import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: problems")
struct ConfigProblemTests {
    @Test("a syntax error is one problem FILE:LINE:COLUMN: message")
    func syntaxErrorHasLineAndColumn() throws {
        let problems = configProblems("cities = []\n\n[socket]\npath = \n")
        try #require(problems.count == 1)
        #expect(problems[0].line == 4)
        #expect(problems[0].column != nil)
        #expect(problems[0].description.hasPrefix("test.toml:4:\(problems[0].column ?? 0): "))
        #expect(problems[0].message.count > 0)
    }

    @Test("a syntax error in the first line reports line 1 and the column of the error")
    func syntaxErrorColumn() throws {
        let problems = configProblems("refresh = \"10m\" junk")
        try #require(problems.count == 1)
        #expect(problems[0].line == 1)
        #expect(problems[0].column == 17)
    }

    @Test("a duplicate key is a syntax error")
    func duplicateKeyIsSyntaxError() throws {
        let problems = configProblems("refresh = \"1m\"\nrefresh = \"2m\"\n")
        try #require(problems.count == 1)
        #expect(problems[0].line == 2)
    }

    @Test("a null character is a syntax error at its position")
    func nullCharacter() throws {
        let problems = configProblems("refresh = \"1m\"\nab\u{0}c = 1\n")
        try #require(problems.count == 1)
        #expect(problems[0].description == "test.toml:2:3: null characters are not allowed in TOML documents")
    }

    @Test("an unknown top-level key is named")
    func unknownTopLevelKey() {
        #expect(configProblemLines("colour = \"red\"") == ["test.toml:1:1: colour: unknown key"])
    }

    @Test("an unknown key in a known table is named by its full dotted path, with a close match")
    func unknownNestedKey() {
        #expect(
            configProblemLines("[weather]\nunit = \"metric\"")
                == ["test.toml:2:1: weather.unit: unknown key; did you mean `units`?"])
        #expect(
            configProblemLines("[openweathermap]\ntimeot = \"1s\"")
                == ["test.toml:2:1: openweathermap.timeot: unknown key; did you mean `timeout`?"])
    }

    @Test("a key of another table is suggested with its full path")
    func keyOfAnotherTable() {
        #expect(
            configProblemLines("units = \"metric\"")
                == ["test.toml:1:1: units: unknown key; did you mean `weather.units`?"])
        #expect(
            configProblemLines("[weather]\ntimeout = \"1s\"")
                == ["test.toml:2:1: weather.timeout: unknown key; did you mean `openweathermap.timeout`?"])
    }

    @Test("a key close to a deprecated one is pointed to where that key moved")
    func suggestionOfMovedKey() {
        #expect(
            configProblemLines("[openweathermap]\nunit = \"metric\"")
                == ["test.toml:2:1: openweathermap.unit: unknown key; did you mean `weather.units`?"])
        #expect(
            configProblemLines("[openweathermap]\ncacheTTL = \"1m\"")
                == ["test.toml:2:1: openweathermap.cacheTTL: unknown key; did you mean `weather.cache_ttl`?"])
    }

    @Test("a camel-case spelling is matched to the snake-case key")
    func camelCaseSuggestion() {
        #expect(
            configProblemLines("[socket]\nmaxClients = 3")
                == ["test.toml:2:1: socket.maxClients: unknown key; did you mean `max_clients`?"])
    }

    @Test("an unknown table is one unknown key, also when empty")
    func unknownTable() {
        #expect(configProblemLines("[logging]\nlevel = \"debug\"") == ["test.toml:1:2: logging: unknown key"])
        #expect(configProblemLines("[gspd]") == ["test.toml:1:2: gspd: unknown key; did you mean `gpsd`?"])
    }

    @Test("a table inside a known table is an unknown key")
    func unknownSubTable() {
        #expect(configProblemLines("[socket.extra]\na = 1") == ["test.toml:1:2: socket.extra: unknown key"])
    }

    @Test("keys that are not bare are quoted in the path")
    func quotedKeyInPath() {
        #expect(configProblemLines("[state]\n\"my dir\" = \"x\"") == [#"test.toml:2:1: state."my dir": unknown key"#])
    }

    @Test("a known table given as another type is a wrong type")
    func tableOfWrongType() {
        #expect(configProblemLines("gpsd = true") == ["test.toml:1:1: gpsd: expected a table, found a boolean"])
        #expect(
            configProblemLines("[[region]]\naround = 1")
                == ["test.toml:1:3: region: expected a table, found an array"])
    }

    @Test(
        "wrong types say what was expected and what was found",
        arguments: [
            ("refresh = 600", #"refresh: expected a duration string like "10m", found an integer"#),
            ("cities = \"Paris\"", "cities: expected an array of strings, found a string"),
            ("cities = [\"Paris\", 3]", "20: cities[1]: expected a city name string, found an integer"),
            ("openweathermap.base_url = 1", "openweathermap.base_url: expected a string, found an integer"),
            ("openweathermap.api_key = 12345", "openweathermap.api_key: expected a string, found an integer"),
            ("weather.units = 1", "weather.units: expected a string, found an integer"),
            ("weather.lang = true", "weather.lang: expected a string, found a boolean"),
            ("weather.cache_ttl = 600", #"weather.cache_ttl: expected a duration string like "10m", found an integer"#),
            ("weather.geocode_ttl = 30", #"weather.geocode_ttl: expected a duration string like "10m", found an integer"#),
            (
                "weather.providers = \"openweathermap\"",
                #"weather.providers: expected an array of provider names like ["openweathermap", "open-meteo"], found a string"#
            ),
            ("weather = []", "weather: expected a table, found an array"),
            ("openweathermap.units = 1", "openweathermap.units: expected a string, found an integer"),
            (
                "openweathermap.requests_per_minute = \"60\"",
                "openweathermap.requests_per_minute: expected an integer, found a string"
            ),
            (
                "openweathermap.cache_ttl = 1.5",
                #"openweathermap.cache_ttl: expected a duration string like "10m", found a float"#
            ),
            ("socket.max_clients = \"256\"", "socket.max_clients: expected an integer, found a string"),
            ("socket.max_clients = 2.0", "socket.max_clients: expected an integer, found a float"),
            ("socket.mode = 0o660", #"socket.mode: expected a string of octal digits like "0660", found an integer"#),
            ("socket.path = [\"a\"]", "socket.path: expected a string, found an array"),
            ("gpsd.enabled = \"yes\"", "gpsd.enabled: expected a boolean (true or false), found a string"),
            ("gpsd.port = 2947.5", "gpsd.port: expected an integer, found a float"),
            ("gpsd.max_horizontal_error = \"100\"", "gpsd.max_horizontal_error: expected a number, found a string"),
            ("gpsd.follow = 1", "gpsd.follow: expected a boolean (true or false), found an integer"),
            ("region.around = true", "region.around: expected an integer, found a boolean"),
            ("state.directory = 1979-05-27", "state.directory: expected a string, found a date"),
        ])
    func wrongType(toml: String, expected: String) {
        // At the key, line 1 column 1, or at the column before the message (an array's element).
        let atColumn = expected.first?.isNumber == true
        #expect(configProblemLines(toml) == ["test.toml:1:" + (atColumn ? "" : "1: ") + expected])
    }

    @Test("malformed durations are a problem naming the text", arguments: ["10", "ten minutes", "-1s", "10 m", "1w", "1D", ""])
    func malformedDuration(text: String) {
        #expect(
            configProblemLines("refresh = \"\(text)\"") == [
                #"test.toml:1:1: refresh: expected a duration string like "10m" (a number, then ms, s, m, h or d), found "\#(text)""#
            ])
        #expect(
            configProblemLines("weather.geocode_ttl = \"\(text)\"") == [
                #"test.toml:1:1: weather.geocode_ttl: expected a duration string like "10m" (a number, then ms, s, m, h or d), found "\#(text)""#
            ])
    }

    @Test("every problem of a file is reported at once, in a stable order")
    func severalProblemsCollected() {
        let lines = configProblemLines(
            #"""
            refresh = "0s"
            colour = 1
            [openweathermap]
            units = "kelvin"
            unit = "metric"
            [socket]
            max_clients = 0
            [region]
            around = 9
            """#)
        #expect(
            lines == [
                #"test.toml:1:1: refresh: must be at least 1s, found "0s""#,
                "test.toml:2:1: colour: unknown key",
                "test.toml:5:1: openweathermap.unit: unknown key; did you mean `weather.units`?",
                #"test.toml:4:1: openweathermap.units: expected one of "standard", "metric", "imperial", found "kelvin""#,
                "test.toml:7:1: socket.max_clients: must be between 1 and 65536, found 0",
                "test.toml:9:1: region.around: must be between 0 and 3, found 9",
            ])
    }

    @Test("the error's description is one problem per line")
    func errorDescription() {
        let error = ConfigError(problems: [
            ConfigProblem(file: "a.toml", line: 3, column: 7, message: "bad"),
            ConfigProblem(file: "a.toml", keyPath: "socket.path", message: "worse"),
            ConfigProblem(file: "a.toml", line: 5, column: 1, keyPath: "socket.mode", message: "worse still"),
            ConfigProblem(file: "a.toml", message: "worst"),
        ])
        #expect(
            error.description == "a.toml:3:7: bad\na.toml: socket.path: worse\na.toml:5:1: socket.mode: worse still\na.toml: worst")
    }

    @Test("the inline api key is never echoed in a problem")
    func apiKeyNotEchoed() {
        let lines = configProblemLines("openweathermap.api_key = \"   \"\nopenweathermap.unit = \"sekrit\"")
        #expect(lines.contains("test.toml:1:1: openweathermap.api_key: expected a non-empty string, found an empty one"))
        let other = configProblemLines("openweathermap.api_key = \"sekrit-key\"\nrefresh = 1")
        #expect(!other.joined().contains("sekrit-key"))
    }

    @Test("a tile URL template needs {z}, {x} and {y}, in any order and case of scheme")
    func tileURLTemplate() throws {
        for missing in ["{z}", "{x}", "{y}"] {
            let template = "https://tile.example/{z}/{x}/{y}.png".replacingOccurrences(of: missing, with: "0")
            #expect(
                configProblemLines("[web]\ntile_url = \"\(template)\"") == [
                    "test.toml:2:1: web.tile_url: expected an http:// or https:// tile URL template with {z}, {x} and {y}"
                        + " (\"\" = the bundled basemap), found \"\(template)\""
                ])
        }
        #expect(try parseConfig("[web]\ntile_url = \"HTTP://tile.example/{y}/{x}/{z}\"").web.tileURL == "HTTP://tile.example/{y}/{x}/{z}")
    }
}
