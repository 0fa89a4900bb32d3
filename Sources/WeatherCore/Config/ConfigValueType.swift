import TOMLKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a configuration key holds: how a TOML value is read and checked, and how it is written back.
///
/// Messages say what was expected and what was found; a key's own range check is part of its type
/// (``integer(_:)``, ``duration(_:)``, ``checked(_:)``).
public struct ConfigValueType<Value: Sendable & Equatable>: Sendable {
    /// Reports a problem: the key path (the key's own, or one of its elements like `cities[1]`) and the message.
    typealias Report = (_ path: String, _ message: String) -> Void

    /// Reads `value` of the key at `path`; nil (with a problem reported) when it cannot be used.
    let read: @Sendable (_ value: TOMLValueConvertible, _ path: String, _ report: Report) -> Value?
    /// The value as TOML text, or nil when it is not set (the rendered file says so in a comment).
    let write: @Sendable (Value) -> String?

    /// The same type with one more check of the value read; `check` returns the problem's message.
    func checked(_ check: @escaping @Sendable (Value) -> String?) -> ConfigValueType {
        let read = self.read
        return ConfigValueType(
            read: { value, path, report in
                guard let result = read(value, path, report) else { return nil }
                if let message = check(result) {
                    report(path, message)
                    return nil
                }
                return result
            },
            write: write)
    }
}

extension ConfigValueType where Value == String {
    /// Any string.
    static var string: ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let string = value.string else {
                    report(path, "expected a string, found \(ConfigText.typeName(value))")
                    return nil
                }
                return string
            },
            write: { ConfigText.quoted($0, limit: false) })
    }

    /// A string with more than white space in it; `what` names it in messages ("path").
    static func nonEmpty(_ what: String) -> ConfigValueType {
        string.checked {
            $0.trimmingWhitespace().isEmpty
                ? "expected a non-empty \(what), found \(ConfigText.quoted($0))" : nil
        }
    }

    /// An `http://` or `https://` URL with a host.
    static var httpURL: ConfigValueType {
        string.checked { text in
            HTTPURLText.isValid(text) ? nil : "expected an http:// or https:// url with a host, found \(ConfigText.quoted(text))"
        }
    }

    /// A language code of letters, `_` and `-`.
    static var languageCode: ConfigValueType {
        string.checked { text in
            let valid =
                !text.isEmpty
                && text.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_" || $0 == "-"
                }
            return valid ? nil : "expected a language code of letters, \"_\" and \"-\" like \"en\", found \(ConfigText.quoted(text))"
        }
    }

    /// `HOST:PORT` to listen on (an IPv6 host in brackets), or "" for off.
    static var listenAddress: ConfigValueType {
        string.checked { text in
            text.isEmpty || ListenAddress(text) != nil
                ? nil
                : "expected \"HOST:PORT\" like \"127.0.0.1:8080\" or \"[::1]:8080\" (\"\" = off), found \(ConfigText.quoted(text))"
        }
    }

    /// An XYZ tile URL template (http:// or https://, with {z}, {x} and {y}), or "" for the bundled basemap.
    static var tileURL: ConfigValueType {
        string.checked { text in
            if text.isEmpty { return nil }
            let lower = text.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
                ["{z}", "{x}", "{y}"].allSatisfy(text.contains)
            else {
                return
                    "expected an http:// or https:// tile URL template with {z}, {x} and {y} (\"\" = the bundled basemap), found \(ConfigText.quoted(text))"
            }
            return nil
        }
    }

    /// An MQTT broker URL, `mqtt://HOST:PORT` or `mqtts://HOST:PORT`, or "" for off. A URL with a
    /// user name or password in it is refused without them in the message (it goes to the journal).
    static var brokerURL: ConfigValueType {
        string.checked { text in
            if text.isEmpty || BrokerAddress(text) != nil { return nil }
            if text.contains("@" as Character) {
                return "must not hold a user name or password (set mqtt.username, and the password in mqtt.password_file"
                    + " or the mqtt-password credential), found \(ConfigText.quoted(withoutUserInfo(text)))"
            }
            return "expected \"mqtt://HOST:PORT\" or \"mqtts://HOST:PORT\" (\"\" = off), found \(ConfigText.quoted(text))"
        }
    }

    /// A URL with everything between its scheme and its last `@` (a user name, a password) left out.
    static func withoutUserInfo(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let host = text[text.index(after: at)...]
        if let scheme = text.firstRange(of: "://"), scheme.upperBound <= at {
            return text[..<scheme.upperBound] + "…@" + host
        }
        return "…@" + host
    }

    /// An MQTT topic name to publish under: not empty, no wildcards (`+`, `#`), no control
    /// characters, not starting or ending with `/`.
    static var topicName: ConfigValueType {
        string.checked { text in
            if text.isEmpty { return "expected a non-empty MQTT topic like \"weatherd\", found \"\"" }
            if text.contains("+" as Character) || text.contains("#" as Character) {
                return "must not contain the MQTT wildcards + and #, found \(ConfigText.quoted(text))"
            }
            if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return "must not contain control characters, found \(ConfigText.quoted(text))"
            }
            if text.hasPrefix("/") || text.hasSuffix("/") { return "must not start or end with \"/\", found \(ConfigText.quoted(text))" }
            if text.utf8.count > 1024 { return "must be at most 1024 bytes long, found \(text.utf8.count) bytes" }
            return nil
        }
    }

    /// One level of an MQTT topic (the device name): no `/`, `+`, `#` or control characters, at
    /// most 128 bytes; "" allowed when `allowEmpty` (the default is taken then).
    static func topicLevel(allowEmpty: Bool) -> ConfigValueType {
        string.checked { text in
            if text.isEmpty { return allowEmpty ? nil : "expected a non-empty name, found \"\"" }
            if text.contains("/" as Character) || text.contains("+" as Character) || text.contains("#" as Character)
                || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                return
                    "must not contain \"/\", \"+\", \"#\" or control characters (it is one level of the topics), found \(ConfigText.quoted(text))"
            }
            if text.utf8.count > 128 { return "must be at most 128 bytes long, found \(text.utf8.count) bytes" }
            return nil
        }
    }

    /// A desktop id as GeoClue takes it (a section name and a `whitelist=` entry of its
    /// configuration): letters, digits, `.`, `-` and `_`, at most 255 bytes.
    static var desktopID: ConfigValueType {
        string.checked { text in
            if text.isEmpty { return "expected a non-empty desktop id, found \"\"" }
            let allowed = text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0))
            }
            if !allowed {
                return
                    "must be letters, digits, \".\", \"-\" and \"_\" only (a section name of geoclue.conf), found \(ConfigText.quoted(text))"
            }
            if text.utf8.count > 255 { return "must be at most 255 bytes long, found \(text.utf8.count) bytes" }
            return nil
        }
    }

    /// The path of a Unix domain socket: not empty, and short enough for a socket address.
    static var socketPath: ConfigValueType {
        string.checked { path in
            if path.isEmpty { return "expected a non-empty path, found \"\"" }
            if path.utf8.count >= 108 {
                return "must be shorter than 108 bytes (the limit of a unix socket address), found \(path.utf8.count) bytes"
            }
            return nil
        }
    }
}

extension ConfigValueType where Value == Int {
    /// An integer within `range`.
    static func integer(_ range: ClosedRange<Int>) -> ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let int = value.int else {
                    report(path, "expected an integer, found \(ConfigText.typeName(value))")
                    return nil
                }
                guard range.contains(int) else {
                    report(path, "must be between \(range.lowerBound) and \(range.upperBound), found \(int)")
                    return nil
                }
                return int
            },
            write: { "\($0)" })
    }
}

extension ConfigValueType where Value == Double {
    /// A number (an integer is taken as a float too).
    static var number: ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                if let double = value.double { return double }
                if let int = value.int { return Double(int) }
                report(path, "expected a number, found \(ConfigText.typeName(value))")
                return nil
            },
            write: ConfigText.number)
    }

    /// A finite number of metres greater than `bound`.
    static func metres(greaterThan bound: Int) -> ConfigValueType {
        number.checked { $0.isFinite && $0 > Double(bound) ? nil : "must be a number of metres greater than \(bound), found \($0)" }
    }

    /// A finite number of metres of at least `bound`.
    static func metres(atLeast bound: Int) -> ConfigValueType {
        number.checked { $0.isFinite && $0 >= Double(bound) ? nil : "must be a number of metres of at least \(bound), found \($0)" }
    }
}

extension ConfigValueType where Value == Bool {
    /// `true` or `false`.
    static var boolean: ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let bool = value.bool else {
                    report(path, "expected a boolean (true or false), found \(ConfigText.typeName(value))")
                    return nil
                }
                return bool
            },
            write: { "\($0)" })
    }
}

extension ConfigValueType where Value == Duration {
    /// Bounds of a duration key, as they are said in messages.
    struct DurationBounds: Sendable {
        var lower: (value: Duration, inclusive: Bool)?
        var upper: Duration?

        static func atLeast(_ value: Duration) -> DurationBounds { DurationBounds(lower: (value, true)) }
        static func atMost(_ value: Duration) -> DurationBounds { DurationBounds(upper: value) }
        static func moreThan(_ value: Duration, atMost upper: Duration) -> DurationBounds {
            DurationBounds(lower: (value, false), upper: upper)
        }

        /// The message for `value` outside these bounds, or nil when it is within them.
        func problem(_ value: Duration) -> String? {
            var valid = true
            var said: [String] = []
            if let lower {
                valid = valid && (lower.inclusive ? value >= lower.value : value > lower.value)
                said.append((lower.inclusive ? "at least " : "more than ") + DurationText.format(lower.value))
            }
            if let upper {
                valid = valid && value <= upper
                said.append("at most " + DurationText.format(upper))
            }
            if valid { return nil }
            return "must be \(said.joined(separator: " and ")), found \(ConfigText.quoted(DurationText.format(value)))"
        }
    }

    /// A duration string like `"10m"` (``DurationText``) within `bounds`.
    static func duration(_ bounds: DurationBounds = DurationBounds()) -> ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let text = value.string else {
                    report(path, "expected a duration string like \"10m\", found \(ConfigText.typeName(value))")
                    return nil
                }
                guard let duration = DurationText.parse(text) else {
                    report(
                        path, "expected a duration string like \"10m\" (a number, then ms, s, m, h or d), found \(ConfigText.quoted(text))")
                    return nil
                }
                if let message = bounds.problem(duration) {
                    report(path, message)
                    return nil
                }
                return duration
            },
            write: { ConfigText.quoted(DurationText.format($0)) })
    }
}

extension ConfigValueType where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the names of `Value`'s cases.
    static var choice: ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let text = ConfigValueType<String>.string.read(value, path, report) else { return nil }
                guard let choice = Value(rawValue: text) else {
                    let choices = Value.allCases.map { ConfigText.quoted($0.rawValue) }.joined(separator: ", ")
                    report(path, "expected one of \(choices), found \(ConfigText.quoted(text))")
                    return nil
                }
                return choice
            },
            write: { ConfigText.quoted($0.rawValue) })
    }
}

extension ConfigValueType where Value == UInt32 {
    /// A file mode written as a string of octal digits like `"0660"`.
    static var fileMode: ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let text = value.string else {
                    report(path, "expected a string of octal digits like \"0660\", found \(ConfigText.typeName(value))")
                    return nil
                }
                guard !text.isEmpty, text.allSatisfy({ ("0"..."7").contains($0) }) else {
                    report(path, "expected a string of octal digits like \"0660\", found \(ConfigText.quoted(text))")
                    return nil
                }
                guard let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                    report(path, "must be between \"0000\" and \"0777\", found \(ConfigText.quoted(text))")
                    return nil
                }
                return mode
            },
            write: { mode in
                let octal = String(mode, radix: 8)
                return ConfigText.quoted(String(repeating: "0", count: max(0, 4 - octal.count)) + octal)
            })
    }
}

extension ConfigValueType where Value == Secret? {
    /// A secret string; its value never appears in a message, and it is written as `"<redacted>"`.
    static var secret: ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let key = ConfigValueType<String>.string.read(value, path, report) else { return nil }
                guard !key.trimmingWhitespace().isEmpty else {
                    report(path, "expected a non-empty string, found an empty one")
                    return nil
                }
                return .some(Secret(key))
            },
            write: { $0 == nil ? nil : ConfigText.quoted("<redacted>") })
    }
}

extension ConfigValueType where Value == [String] {
    /// A list of host names or addresses (as a `Host` header carries them, without the port).
    static var hostList: ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let array = value.array else {
                    report(path, "expected an array of strings, found \(ConfigText.typeName(value))")
                    return nil
                }
                var hosts: [String] = []
                var valid = true
                for (index, element) in array.enumerated() {
                    guard let host = element.string else {
                        report("\(path)[\(index)]", "expected a host name string, found \(ConfigText.typeName(element))")
                        valid = false
                        continue
                    }
                    let isName =
                        !host.isEmpty
                        && host.unicodeScalars.allSatisfy {
                            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                                || ".-:[]".unicodeScalars.contains($0)
                        }
                    guard isName else {
                        report("\(path)[\(index)]", "expected a host name like \"weather.example\", found \(ConfigText.quoted(host))")
                        valid = false
                        continue
                    }
                    hosts.append(host.lowercased())
                }
                return valid ? hosts : nil
            },
            write: { "[" + $0.map { ConfigText.quoted($0, limit: false) }.joined(separator: ", ") + "]" })
    }

    /// A list of city names: trimmed, not empty, no control characters, no two alike
    /// (``LookupKey/normalize(city:)``). One bad element makes the whole list unusable.
    static var cityList: ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let array = value.array else {
                    report(path, "expected an array of strings, found \(ConfigText.typeName(value))")
                    return nil
                }
                var result: [String] = []
                var seen: [String: (index: Int, city: String)] = [:]
                var valid = true
                for (index, element) in array.enumerated() {
                    let elementPath = "\(path)[\(index)]"
                    guard let raw = element.string else {
                        report(elementPath, "expected a city name string, found \(ConfigText.typeName(element))")
                        valid = false
                        continue
                    }
                    let city = raw.trimmingWhitespace()
                    if city.isEmpty {
                        report(elementPath, "expected a city name, found an empty string")
                        valid = false
                    } else if city.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                        report(elementPath, "must not contain control characters, found \(ConfigText.quoted(city))")
                        valid = false
                    } else if city.count > 200 {
                        report(elementPath, "must be at most 200 characters long, found \(city.count) characters")
                        valid = false
                    } else if let first = seen[LookupKey.normalize(city: city)] {
                        report(
                            elementPath,
                            "duplicate of \(path)[\(first.index)] (\(ConfigText.quoted(first.city))), found \(ConfigText.quoted(city))")
                        valid = false
                    } else {
                        seen[LookupKey.normalize(city: city)] = (index, city)
                        result.append(city)
                    }
                }
                return valid ? result : nil
            },
            write: { "[" + $0.map { ConfigText.quoted($0, limit: false) }.joined(separator: ", ") + "]" })
    }
}

extension ConfigValueType where Value == String {
    /// A string that can go into an HTTP header (the User-Agent): no control characters.
    static var headerText: ConfigValueType {
        string.checked { text in
            text.unicodeScalars.contains { $0.properties.generalCategory == .control }
                ? "expected text without control characters (it goes into the User-Agent header)" : nil
        }
    }
}

extension ConfigValueType where Value == [WeatherProviderName] {
    /// A non-empty list of weather provider names (``WeatherProviderName``), each at most once.
    static var providerList: ConfigValueType { nameList() }
}

extension ConfigValueType where Value == [AlertProviderName] {
    /// A non-empty list of alert provider names (``AlertProviderName``), each at most once.
    static var alertProviderList: ConfigValueType { nameList() }
}

extension ConfigValueType {
    /// A non-empty list of provider names (`Name`'s cases), each at most once. Every problem is
    /// reported at the key itself, naming the element; one bad element makes the whole list unusable.
    static func nameList<Name>() -> ConfigValueType
    where Value == [Name], Name: CaseIterable & RawRepresentable & Sendable & Equatable, Name.RawValue == String {
        let names = Name.allCases.map { ConfigText.quoted($0.rawValue) }.joined(separator: ", ")
        return ConfigValueType(
            read: { value, path, report in
                guard let array = value.array else {
                    report(path, "expected an array of provider names like [\(names)], found \(ConfigText.typeName(value))")
                    return nil
                }
                guard !array.isEmpty else {
                    report(path, "expected at least one provider (\(names)), found []")
                    return nil
                }
                var providers: [Name] = []
                var valid = true
                for (index, element) in array.enumerated() {
                    guard let text = element.string else {
                        report(path, "expected a provider name string, found \(ConfigText.typeName(element)) at [\(index)]")
                        valid = false
                        continue
                    }
                    guard let provider = Name(rawValue: text) else {
                        var message = "expected one of \(names), found \(ConfigText.quoted(text)) at [\(index)]"
                        if let close = Name.allCases.first(where: { fold($0.rawValue) == fold(text) }) {
                            message += "; did you mean \(ConfigText.quoted(close.rawValue))?"
                        }
                        report(path, message)
                        valid = false
                        continue
                    }
                    guard !providers.contains(provider) else {
                        report(path, "expected each provider at most once, found \(ConfigText.quoted(text)) again at [\(index)]")
                        valid = false
                        continue
                    }
                    providers.append(provider)
                }
                return valid ? providers : nil
            },
            write: { "[" + $0.map { ConfigText.quoted($0.rawValue) }.joined(separator: ", ") + "]" })
    }

    /// A name without case, `-` and `_`: how a misspelt provider name is matched to a known one.
    private static func fold(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " })
    }
}

extension ConfigValueType where Value == String {
    /// An OwnTracks device, `USER/DEVICE` (two non-empty topic levels, as the last two levels of its
    /// topic), or "" for none.
    static var ownTracksDevice: ConfigValueType {
        string.checked { text in
            if text.isEmpty { return nil }
            let levels = text.split(separator: "/", omittingEmptySubsequences: false)
            let valid =
                levels.count == 2 && levels.allSatisfy { !$0.isEmpty }
                && !text.unicodeScalars.contains(where: { "+#".unicodeScalars.contains($0) || $0.properties.generalCategory == .control })
            return valid
                ? nil : "expected \"USER/DEVICE\" (the last two levels of the device's topic) or \"\", found \(ConfigText.quoted(text))"
        }
    }
}

extension ConfigValueType where Value == [String] {
    /// A list of MQTT subscription filters (`owntracks/+/+`, `owntracks/#`): not empty, `+` and `#`
    /// only as a whole level, `#` only last, no control characters, each at most once.
    static var topicFilterList: ConfigValueType {
        ConfigValueType(
            read: { value, path, report in
                guard let array = value.array else {
                    report(path, "expected an array of MQTT topic filters like [\"owntracks/+/+\"], found \(ConfigText.typeName(value))")
                    return nil
                }
                var filters: [String] = []
                var valid = true
                for (index, element) in array.enumerated() {
                    let elementPath = "\(path)[\(index)]"
                    guard let filter = element.string else {
                        report(elementPath, "expected an MQTT topic filter string, found \(ConfigText.typeName(element))")
                        valid = false
                        continue
                    }
                    if let problem = MQTTTopicFilter.problem(filter) {
                        report(elementPath, "\(problem), found \(ConfigText.quoted(filter))")
                        valid = false
                    } else if let first = filters.firstIndex(of: filter) {
                        report(elementPath, "duplicate of \(path)[\(first)], found \(ConfigText.quoted(filter))")
                        valid = false
                    } else {
                        filters.append(filter)
                    }
                }
                return valid ? filters : nil
            },
            write: { "[" + $0.map { ConfigText.quoted($0, limit: false) }.joined(separator: ", ") + "]" })
    }
}
