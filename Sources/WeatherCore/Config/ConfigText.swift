import TOMLKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How configuration values and key paths are written in messages and in the rendered file.
enum ConfigText {
    /// The dotted path of `key` in the table at `parent`; keys that are not bare TOML keys are quoted.
    static func path(_ parent: String, _ key: String) -> String {
        let isBare =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" || $0 == "-"
            }
        let written = isBare ? key : quoted(key)
        return parent.isEmpty ? written : "\(parent).\(written)"
    }

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
        let body = limit && text.count > 60 ? String(text.prefix(60)) + "…" : text
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
                    escaped += "\\u" + NumberText.hex(scalar.value, digits: 4)
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped + "\""
    }

    /// A float as TOML writes it (`100.0`, `inf`, `-inf`, `nan`).
    static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : (value.isNaN ? "nan" : value < 0 ? "-inf" : "inf")
    }
}
