/// Whether a configured base URL is an `http://` or `https://` URL with a host: the scheme in any
/// case, then an authority whose host is not empty. The host is a bracketed literal (an IPv6
/// address), or a name of RFC 3986's characters (letters, digits, `-._~!$&'()*+,;=`, `%` and two hex
/// digits) or of non-ASCII ones (an internationalized name); its port, after a `:`, is digits. The
/// user information before an `@` and what follows the authority are not looked at: libcurl
/// encodes what needs it.
///
/// That is what Foundation's `URLComponents(string:)` accepted with a host, which this replaces: it
/// made about 150 KB of Foundation's code resident in every daemon for a check made at start.
enum HTTPURLText {
    static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let start = schemeEnd(bytes) else { return false }
        let end = bytes[start...].firstIndex { $0 == ascii("/") || $0 == ascii("?") || $0 == ascii("#") } ?? bytes.endIndex
        let hostStart = bytes[start..<end].lastIndex(of: ascii("@")).map { $0 + 1 } ?? start
        let hostAndPort = bytes[hostStart..<end]
        let portStart: Int
        if hostAndPort.first == ascii("[") {
            guard let close = hostAndPort.firstIndex(of: ascii("]")) else { return false }
            portStart = close + 1
        } else {
            portStart = hostAndPort.firstIndex(of: ascii(":")) ?? end
            let name = bytes[hostStart..<portStart]
            guard !name.isEmpty, validName(name) else { return false }
        }
        guard portStart < end else { return portStart == end }
        return bytes[portStart] == ascii(":") && bytes[(portStart + 1)..<end].allSatisfy(isDigit)
    }

    /// The index after `http://` or `https://` (in any case), or nil.
    private static func schemeEnd(_ bytes: [UInt8]) -> Int? {
        for scheme in ["http://", "https://"] {
            let prefix = Array(scheme.utf8)
            if bytes.count >= prefix.count, zip(bytes, prefix).allSatisfy({ lower($0) == $1 }) { return prefix.count }
        }
        return nil
    }

    /// A host name's bytes: unreserved, sub-delimiters, percent-encoded bytes, or non-ASCII.
    private static func validName(_ name: ArraySlice<UInt8>) -> Bool {
        var index = name.startIndex
        while index < name.endIndex {
            let byte = name[index]
            if byte == ascii("%") {
                guard index + 2 < name.endIndex, isHexDigit(name[index + 1]), isHexDigit(name[index + 2]) else { return false }
                index += 3
                continue
            }
            guard byte >= 0x80 || isDigit(byte) || (ascii("a")...ascii("z")).contains(lower(byte)) || nameMarks.contains(byte) else {
                return false
            }
            index += 1
        }
        return true
    }

    private static let nameMarks = Set("-._~!$&'()*+,;=".utf8)

    private static func ascii(_ character: Unicode.Scalar) -> UInt8 { UInt8(ascii: character) }

    private static func lower(_ byte: UInt8) -> UInt8 { (ascii("A")...ascii("Z")).contains(byte) ? byte + 32 : byte }

    private static func isDigit(_ byte: UInt8) -> Bool { (ascii("0")...ascii("9")).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (ascii("a")...ascii("f")).contains(lower(byte)) }
}
