#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The few text helpers the daemon needs from a Foundation without ICU (FoundationEssentials has
// neither `String(format:)` nor `CharacterSet`).

extension StringProtocol {
    /// The text without white space at either end (newlines included), as `Character.isWhitespace`
    /// tells it.
    public func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = lastIndex(where: { !$0.isWhitespace })!
        return String(self[first...last])
    }
}

/// Numbers written as C's `printf` writes them.
public enum NumberText {
    /// `value` with exactly `decimals` decimals, rounded as `printf("%.*f")` rounds (the C library
    /// writes it): `fixed(51.50735, decimals: 4)` is `51.5074`.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        withVaList([Int32(decimals), value]) { arguments in
            var buffer = [CChar](repeating: 0, count: 48)
            let needed = Int(vsnprintf(&buffer, buffer.count, "%.*f", arguments))
            if needed >= buffer.count {
                // Only a huge value needs more room (`%f` writes every integer digit).
                buffer = [CChar](repeating: 0, count: needed + 1)
                return withVaList([Int32(decimals), value]) { again in
                    _ = vsnprintf(&buffer, buffer.count, "%.*f", again)
                    return String(decoding: buffer.prefix(needed).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
            }
            return String(decoding: buffer.prefix(max(needed, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// `value` in upper-case hexadecimal, at least `digits` digits: `hex(0x1F, digits: 4)` is `001F`.
    public static func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
