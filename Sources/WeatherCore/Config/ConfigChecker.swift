import Foundation
import TOMLKit

/// Reads the values of a parsed TOML document into a `DaemonConfig`, collecting every problem.
struct ConfigChecker {
    /// The keys each table may hold, in the order of the contract ("" is the top level).
    static let knownKeys: [(table: String, keys: [String])] = [
        ("", ["cities", "refresh", "openweathermap", "socket", "gpsd", "region", "state"]),
        ("openweathermap", ["base_url", "api_key_file", "api_key", "units", "lang", "timeout",
                            "requests_per_minute", "cache_ttl"]),
        ("socket", ["path", "mode", "max_clients"]),
        ("gpsd", ["enabled", "host", "port", "max_horizontal_error", "locate_timeout", "follow",
                  "follow_distance"]),
        ("region", ["debounce", "around", "concurrency"]),
        ("state", ["directory"]),
    ]

    let file: String
    var problems: [ConfigProblem] = []

    init(file: String) {
        self.file = file
    }

    mutating func problem(_ keyPath: String, _ message: String) {
        problems.append(ConfigProblem(file: file, keyPath: keyPath, message: message))
    }

    // MARK: The document

    mutating func check(_ root: TOMLTable) -> DaemonConfig {
        var config = DaemonConfig()
        if let cities = cities(root["cities"]) { config.cities = cities }
        if let refresh = duration(root, "refresh", in: "") {
            if refresh >= .seconds(1) {
                config.refresh = refresh
            } else {
                problem("refresh", "must be at least 1s, found \(Self.quoted(DurationText.format(refresh)))")
            }
        }
        reportUnknownKeys(in: root, at: "")
        if let table = section(root, "openweathermap") { checkOpenWeatherMap(table, into: &config.openWeatherMap) }
        if let table = section(root, "socket") { checkSocket(table, into: &config.socket) }
        if let table = section(root, "gpsd") { checkGPSD(table, into: &config.gpsd) }
        if let table = section(root, "region") { checkRegion(table, into: &config.region) }
        if let table = section(root, "state") { checkState(table, into: &config.state) }
        return config
    }

    private mutating func section(_ root: TOMLTable, _ name: String) -> TOMLTable? {
        guard let value = root[name] else { return nil }
        guard let table = value.table else {
            problem(name, "expected a table, found \(Self.typeName(value))")
            return nil
        }
        reportUnknownKeys(in: table, at: name)
        return table
    }

    private mutating func cities(_ value: TOMLValueConvertible?) -> [String]? {
        guard let value else { return nil }
        guard let array = value.array else {
            problem("cities", "expected an array of strings, found \(Self.typeName(value))")
            return nil
        }
        var result: [String] = []
        var seen: [String: (index: Int, city: String)] = [:]
        var valid = true
        for (index, element) in array.enumerated() {
            let path = "cities[\(index)]"
            guard let raw = element.string else {
                problem(path, "expected a city name string, found \(Self.typeName(element))")
                valid = false
                continue
            }
            let city = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if city.isEmpty {
                problem(path, "expected a city name, found an empty string")
                valid = false
            } else if city.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                problem(path, "must not contain control characters, found \(Self.quoted(city))")
                valid = false
            } else if city.count > 200 {
                problem(path, "must be at most 200 characters long, found \(city.count) characters")
                valid = false
            } else if let first = seen[LookupKey.normalize(city: city)] {
                problem(path, "duplicate of cities[\(first.index)] (\(Self.quoted(first.city))), found \(Self.quoted(city))")
                valid = false
            } else {
                seen[LookupKey.normalize(city: city)] = (index, city)
                result.append(city)
            }
        }
        return valid ? result : nil
    }

    // MARK: Sections

    private mutating func checkOpenWeatherMap(_ table: TOMLTable, into config: inout OpenWeatherMapConfig) {
        let at = "openweathermap"
        if let url = string(table, "base_url", in: at) {
            if Self.isHTTPURL(url) {
                config.baseURL = url
            } else {
                problem(path(at, "base_url"), "expected an http:// or https:// url with a host, found \(Self.quoted(url))")
            }
        }
        if let file = string(table, "api_key_file", in: at) {
            if file.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                problem(path(at, "api_key_file"), "expected a non-empty path, found \(Self.quoted(file))")
            } else {
                config.apiKeyFile = file
            }
        }
        // The key's value is never echoed, not even in a message.
        if let value = table["api_key"] {
            if let key = value.string {
                if key.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    problem(path(at, "api_key"), "expected a non-empty string, found an empty one")
                } else {
                    config.apiKey = Secret(key)
                }
            } else {
                problem(path(at, "api_key"), "expected a string, found \(Self.typeName(value))")
            }
        }
        if let text = string(table, "units", in: at) {
            if let units = Units(rawValue: text) {
                config.units = units
            } else {
                let choices = Units.allCases.map { Self.quoted($0.rawValue) }.joined(separator: ", ")
                problem(path(at, "units"), "expected one of \(choices), found \(Self.quoted(text))")
            }
        }
        if let lang = string(table, "lang", in: at) {
            if Self.isLanguageCode(lang) {
                config.lang = lang
            } else {
                problem(path(at, "lang"),
                        "expected a language code of letters, \"_\" and \"-\" like \"en\", found \(Self.quoted(lang))")
            }
        }
        if let timeout = duration(table, "timeout", in: at) {
            if timeout > .zero && timeout <= .seconds(300) {
                config.timeout = timeout
            } else {
                problem(path(at, "timeout"),
                        "must be more than 0s and at most 5m, found \(Self.quoted(DurationText.format(timeout)))")
            }
        }
        if let rpm = integer(table, "requests_per_minute", in: at, range: 1...6000) {
            config.requestsPerMinute = rpm
        }
        if let ttl = duration(table, "cache_ttl", in: at) {
            config.cacheTTL = ttl  // 0 turns the cache off; a duration is never negative
        }
    }

    private mutating func checkSocket(_ table: TOMLTable, into config: inout SocketConfig) {
        let at = "socket"
        if let socketPath = string(table, "path", in: at) {
            if socketPath.isEmpty {
                problem(path(at, "path"), "expected a non-empty path, found \"\"")
            } else if socketPath.utf8.count >= 108 {
                problem(path(at, "path"),
                        "must be shorter than 108 bytes (the limit of a unix socket address), found \(socketPath.utf8.count) bytes")
            } else {
                config.path = socketPath
            }
        }
        if let value = table["mode"] {
            if let text = value.string {
                if !text.isEmpty, text.allSatisfy({ ("0"..."7").contains($0) }) {
                    if let mode = UInt32(text, radix: 8), mode <= 0o777 {
                        config.mode = mode
                    } else {
                        problem(path(at, "mode"), "must be between \"0000\" and \"0777\", found \(Self.quoted(text))")
                    }
                } else {
                    problem(path(at, "mode"), "expected a string of octal digits like \"0660\", found \(Self.quoted(text))")
                }
            } else {
                problem(path(at, "mode"), "expected a string of octal digits like \"0660\", found \(Self.typeName(value))")
            }
        }
        if let maxClients = integer(table, "max_clients", in: at, range: 1...65536) {
            config.maxClients = maxClients
        }
    }

    private mutating func checkGPSD(_ table: TOMLTable, into config: inout GPSDConfig) {
        let at = "gpsd"
        if let enabled = boolean(table, "enabled", in: at) { config.enabled = enabled }
        if let host = string(table, "host", in: at) {
            if host.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                problem(path(at, "host"), "expected a non-empty host name or address, found \(Self.quoted(host))")
            } else {
                config.host = host
            }
        }
        if let port = integer(table, "port", in: at, range: 1...65535) { config.port = port }
        if let error = number(table, "max_horizontal_error", in: at) {
            if error.isFinite && error > 0 {
                config.maxHorizontalError = error
            } else {
                problem(path(at, "max_horizontal_error"), "must be a number of metres greater than 0, found \(error)")
            }
        }
        if let timeout = duration(table, "locate_timeout", in: at) {
            if timeout > .zero && timeout <= .seconds(600) {
                config.locateTimeout = timeout
            } else {
                problem(path(at, "locate_timeout"),
                        "must be more than 0s and at most 10m, found \(Self.quoted(DurationText.format(timeout)))")
            }
        }
        if let follow = boolean(table, "follow", in: at) { config.follow = follow }
        if let distance = number(table, "follow_distance", in: at) {
            if distance.isFinite && distance >= 0 {
                config.followDistance = distance
            } else {
                problem(path(at, "follow_distance"), "must be a number of metres of at least 0, found \(distance)")
            }
        }
    }

    private mutating func checkRegion(_ table: TOMLTable, into config: inout RegionConfig) {
        let at = "region"
        if let debounce = duration(table, "debounce", in: at) {
            if debounce <= .seconds(10) {
                config.debounce = debounce
            } else {
                problem(path(at, "debounce"), "must be at most 10s, found \(Self.quoted(DurationText.format(debounce)))")
            }
        }
        if let around = integer(table, "around", in: at, range: 0...3) { config.around = around }
        if let concurrency = integer(table, "concurrency", in: at, range: 1...32) { config.concurrency = concurrency }
    }

    private mutating func checkState(_ table: TOMLTable, into config: inout StateConfig) {
        if let directory = string(table, "directory", in: "state") {
            if directory.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                problem("state.directory", "expected a non-empty path, found \(Self.quoted(directory))")
            } else {
                config.directory = directory
            }
        }
    }

    // MARK: Values (nil when absent or wrong; a wrong one is reported)

    private mutating func string(_ table: TOMLTable, _ key: String, in parent: String) -> String? {
        guard let value = table[key] else { return nil }
        guard let string = value.string else {
            problem(path(parent, key), "expected a string, found \(Self.typeName(value))")
            return nil
        }
        return string
    }

    private mutating func boolean(_ table: TOMLTable, _ key: String, in parent: String) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let bool = value.bool else {
            problem(path(parent, key), "expected a boolean (true or false), found \(Self.typeName(value))")
            return nil
        }
        return bool
    }

    private mutating func integer(
        _ table: TOMLTable, _ key: String, in parent: String, range: ClosedRange<Int>
    ) -> Int? {
        guard let value = table[key] else { return nil }
        guard let int = value.int else {
            problem(path(parent, key), "expected an integer, found \(Self.typeName(value))")
            return nil
        }
        guard range.contains(int) else {
            problem(path(parent, key), "must be between \(range.lowerBound) and \(range.upperBound), found \(int)")
            return nil
        }
        return int
    }

    /// A float; an integer is taken as a float too.
    private mutating func number(_ table: TOMLTable, _ key: String, in parent: String) -> Double? {
        guard let value = table[key] else { return nil }
        if let double = value.double { return double }
        if let int = value.int { return Double(int) }
        problem(path(parent, key), "expected a number, found \(Self.typeName(value))")
        return nil
    }

    private mutating func duration(_ table: TOMLTable, _ key: String, in parent: String) -> Duration? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else {
            problem(path(parent, key), "expected a duration string like \"10m\", found \(Self.typeName(value))")
            return nil
        }
        guard let duration = DurationText.parse(text) else {
            problem(path(parent, key),
                    "expected a duration string like \"10m\" (a number, then ms, s, m or h), found \(Self.quoted(text))")
            return nil
        }
        return duration
    }

    // MARK: Unknown keys

    private mutating func reportUnknownKeys(in table: TOMLTable, at parent: String) {
        let known = Self.knownKeys.first(where: { $0.table == parent })?.keys ?? []
        for key in table.keys.sorted() where !known.contains(key) {
            var message = "unknown key"
            if let suggestion = Self.suggestion(for: key, in: parent, known: known) {
                message += "; did you mean `\(suggestion)`?"
            }
            problem(path(parent, key), message)
        }
    }

    /// A known key the unknown `key` was probably meant to be: one of the same table spelled alike
    /// (case, `_`/`-`, up to two typos), else the same key of another table (given as its full path).
    static func suggestion(for key: String, in parent: String, known: [String]) -> String? {
        let folded = fold(key)
        if let match = known.first(where: { fold($0) == folded }) { return match }
        let limit = key.count <= 4 ? 1 : 2
        let close = known
            .map { (key: $0, distance: editDistance(folded, fold($0))) }
            .filter { $0.distance <= limit }
            .min(by: { $0.distance < $1.distance })
        if let close { return close.key }
        for (table, keys) in knownKeys where table != parent && keys.contains(where: { fold($0) == folded }) {
            let match = keys.first(where: { fold($0) == folded })!
            return table.isEmpty ? match : "\(table).\(match)"
        }
        return nil
    }

    private static func fold(_ key: String) -> String {
        String(key.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Edits (insertion, deletion, substitution, swap of neighbours) that turn `a` into `b`.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    // MARK: Text

    /// The dotted path of `key` in the table at `parent`; keys that are not bare TOML keys are quoted.
    func path(_ parent: String, _ key: String) -> String {
        let isBare = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" || $0 == "-"
        }
        let written = isBare ? key : Self.quoted(key)
        return parent.isEmpty ? written : "\(parent).\(written)"
    }

    static func isHTTPURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return false }
        guard let components = URLComponents(string: text), let host = components.host else { return false }
        return !host.isEmpty
    }

    static func isLanguageCode(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_" || $0 == "-"
        }
    }

    // MARK: Message text

    /// `value`'s TOML type with an article, for "found …" in messages.
    static func typeName(_ value: TOMLValueConvertible) -> String {
        switch value.type {
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a float"
        case .bool: return "a boolean"
        case .table: return "a table"
        case .array: return "an array"
        case .date: return "a date"
        case .time: return "a time"
        case .dateTime: return "a date-time"
        }
    }

    /// `text` as a TOML basic string (quotes, backslashes and control characters escaped); long texts are
    /// cut to 60 characters with `…` for messages when `limit` is true.
    static func quoted(_ text: String, limit: Bool = true) -> String {
        var body = limit && text.count > 60 ? String(text.prefix(60)) + "…" : text
        var escaped = "\""
        for scalar in body.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            default:
                if scalar.properties.generalCategory == .control {
                    escaped += String(format: "\\u%04X", scalar.value)
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        body = escaped + "\""
        return body
    }
}
