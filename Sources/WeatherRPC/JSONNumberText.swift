/// The exact text of a JSON number that neither ``JSONValue/integer(_:)`` nor ``JSONValue/double(_:)``
/// would write back the same way: `18446744073709551616`, `-0`, `1.0`, `0.10`, `1e400`,
/// `123456789012345678901234567890.5`.
///
/// The parser keeps such a number as its text so that writing the value gives back exactly what was
/// read (a JSON-RPC `id` is echoed as sent). Its *value* is the one it always had: it equals, hashes,
/// and reads through `intValue`/`doubleValue` like the `.integer` (integral text within 64 bits) or
/// `.double` (finite) the text converts to; the text is only how it is written. A number beyond the
/// range of a Double (`1e400`) has no numeric value: it is equal only to the same text.
public struct JSONNumberText: Sendable, CustomStringConvertible {
    /// The number as written in JSON.
    public let text: String
    /// The value when the text is integral and fits in 64 bits.
    private let integer: Int64?
    /// The value when the text is not integral, or too large for 64 bits, and within a Double's range.
    private let double: Double?

    /// The value as the plain number it converts to, nil when it has none (beyond a Double's range).
    var plain: JSONValue? {
        if let integer { .integer(integer) } else if let double { .double(double) } else { nil }
    }

    /// The number written as `text`, which must be one JSON number (RFC 8259) and nothing else.
    public init?(_ text: String) {
        var parser = JSONParser(Array(text.utf8))
        guard let first = text.utf8.first, first != 0x20, first != 0x09, first != 0x0A, first != 0x0D,
            let last = text.utf8.last, last != 0x20, last != 0x09, last != 0x0A, last != 0x0D,
            let value = try? parser.parseDocument(), value.isNumber
        else { return nil }
        self.init(checked: text)
    }

    /// `text` as read by the parser: a valid JSON number.
    init(checked text: String) {
        self.text = text
        let integral = !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        integer = integral ? Int64(text) : nil
        double = integer == nil ? Double(text).flatMap { $0.isFinite ? $0 : nil } : nil
    }

    public var description: String { text }
}
