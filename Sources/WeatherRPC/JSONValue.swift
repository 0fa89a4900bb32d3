/// A JSON value, as read from a client or an upstream and as written on the socket.
///
/// Objects keep the order in which their members were inserted, so what the daemon writes reads
/// the same way every time (`"type"` before `"features"`), which matters for a protocol people try
/// by hand with `socat`.
///
/// A number read by ``parse(_:)`` is written back with exactly the characters it was read as: it is
/// an `.integer` or a `.double` when that writes it the same way, else a `.numberText`, which equals
/// the `.integer` or `.double` it converts to (see ``JSONNumberText``).
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    case double(Double)
    /// A number kept as the text it was read as, because `.integer` or `.double` would write it
    /// differently (`-0`, `1.0`, `18446744073709551616`, `1e400`).
    case numberText(JSONNumberText)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

// MARK: - Convenience

extension JSONValue {
    /// A number, or `null` when absent or not finite.
    public static func number(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .double(value)
    }

    /// A string, or `null` when absent.
    public static func string(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var isNull: Bool { self == .null }
    /// Whether the value is a number, in any of its three forms.
    public var isNumber: Bool {
        switch self {
        case .integer, .double, .numberText: true
        default: false
        }
    }

    /// The value as a Double when it is a number (rounded to the nearest Double; nil for a
    /// `.numberText` beyond the range of a Double, like `1e400`).
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .numberText(let n): n.plain?.doubleValue
        default: nil
        }
    }

    /// The value as an Int when it is an integral number.
    public var intValue: Int? {
        switch self {
        case .integer(let i): Int(exactly: i)
        case .double(let d): Int(exactly: d)
        case .numberText(let n): n.plain?.intValue
        default: nil
        }
    }

    /// Member `key` of an object; nil for other values or a missing member.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

// MARK: - Equality

extension JSONValue: Hashable {
    /// A `.numberText` as the plain number it converts to; other values as they are.
    private var plain: JSONValue {
        if case .numberText(let n) = self, let plain = n.plain { plain } else { self }
    }

    /// Equal values of the same kind; a `.numberText` compares as the `.integer` or `.double` it
    /// converts to (a `.numberText` without one, like `1e400`, by its text). As before there is no
    /// equality across `.integer` and `.double`: `1` is not `1.0`.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs.plain, rhs.plain) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.numberText(let a), .numberText(let b)): a.text == b.text
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch plain {
        case .null: hasher.combine(0)
        case .bool(let b):
            hasher.combine(1)
            hasher.combine(b)
        case .integer(let i):
            hasher.combine(2)
            hasher.combine(i)
        case .double(let d):
            hasher.combine(3)
            hasher.combine(d)
        case .numberText(let n):
            hasher.combine(4)
            hasher.combine(n.text)
        case .string(let s):
            hasher.combine(5)
            hasher.combine(s)
        case .array(let a):
            hasher.combine(6)
            hasher.combine(a)
        case .object(let o):
            hasher.combine(7)
            hasher.combine(o)
        }
    }
}

// MARK: - Reading

extension JSONValue {
    /// Parses one JSON text (RFC 8259), keeping the order of object members.
    /// - Throws: `JSONParseError` for anything that is not exactly one JSON value.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(Array(bytes))
        return try parser.parseDocument()
    }
}

// MARK: - Writing

extension JSONValue {
    /// The compact JSON text of this value (no newlines), UTF-8.
    public var serialized: String {
        String(decoding: serializedBytes, as: UTF8.self)
    }

    /// The compact JSON text as bytes.
    ///
    /// Written as bytes, not appended to a `String` piece by piece: each of a string's appends
    /// goes through its general path (a third of a small reply's instructions, measured), where
    /// an array of bytes takes a punctuation mark or a whole member's text in a few instructions.
    public var serializedBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)  // a feature is a few hundred bytes: fewer regrowths on the way
        write(to: &out)
        return out
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.appendUTF8("null")
        case .bool(let b): out.appendUTF8(b ? "true" : "false")
        case .integer(let i): out.appendUTF8(String(i))
        case .double(let d): Self.writeNumber(d, to: &out)
        case .numberText(let n): out.appendUTF8(n.text)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (index, member) in object.ordered.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeNumber(_ d: Double, to out: inout [UInt8]) {
        guard d.isFinite else {
            out.appendUTF8("null")
            return
        }
        if d == d.rounded(), abs(d) < 9.0e15 {
            out.appendUTF8(String(Int64(d)))
        } else {
            out.appendUTF8(d.description)  // shortest representation that round-trips, e.g. 8.94, 1e+20
        }
    }

    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: appended whole. 0xE2 begins U+2028 and U+2029 (and other
        // characters, which the loop below writes plainly), so any string with it takes the loop.
        // Checked and copied over the string's contiguous bytes, not through its UTF-8 view's iterator.
        var text = s
        let plain = text.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain {
            out.append(UInt8(ascii: "\""))
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out.appendUTF8(#"\""#)
            case "\\": out.appendUTF8(#"\\"#)
            case "\n": out.appendUTF8(#"\n"#)
            case "\r": out.appendUTF8(#"\r"#)
            case "\t": out.appendUTF8(#"\t"#)
            case let c where c.value < 0x20 || c == "\u{2028}" || c == "\u{2029}":
                let hex = String(c.value, radix: 16)
                out.appendUTF8(#"\u"#)
                out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 4 - hex.utf8.count))
                out.appendUTF8(hex)
            default: UTF8.encode(scalar) { out.append($0) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension [UInt8] {
    /// Appends the UTF-8 of `text` in one copy: `append(contentsOf: text.utf8)` takes the bytes one
    /// by one through the view's iterator.
    mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}
