/// The path and query parameters of a request target, percent-decoded like a web server does:
/// `+` and `%20` are spaces, `%XX` sequences are UTF-8 bytes (invalid ones become U+FFFD).
struct RequestTarget: Sendable {
    let path: String
    /// Decoded `(name, value)` pairs in request order.
    let parameters: [(name: String, value: String)]
    /// The target as it may be logged: the values of `appid` (OpenWeatherMap's key) and `apikey`
    /// (Open-Meteo's) replaced by `<redacted>`.
    let redacted: String

    init(_ uri: String) {
        let pathPart: Substring
        let queryPart: Substring?
        if let mark = uri.firstIndex(of: "?") {
            pathPart = uri[..<mark]
            queryPart = uri[uri.index(after: mark)...]
        } else {
            pathPart = uri[...]
            queryPart = nil
        }
        path = percentDecode(pathPart, plusAsSpace: false)

        var parameters: [(name: String, value: String)] = []
        var logged: [String] = []
        for piece in (queryPart ?? "").split(separator: "&") {
            let pair = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecode(pair[0], plusAsSpace: true)
            let value = pair.count > 1 ? percentDecode(pair[1], plusAsSpace: true) : ""
            parameters.append((name, value))
            logged.append(["appid", "apikey"].contains(name.lowercased()) ? "\(pair[0])=<redacted>" : String(piece))
        }
        self.parameters = parameters
        redacted = String(pathPart) + (queryPart == nil ? "" : "?" + logged.joined(separator: "&"))
    }

    /// The first value of the parameter `name` (case-sensitive, as OpenWeatherMap is), if present.
    subscript(name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// Every value of the parameter `name`, in request order (Open-Meteo takes `hourly=a&hourly=b`
    /// as `hourly=a,b`).
    func values(_ name: String) -> [String] {
        parameters.filter { $0.name == name }.map(\.value)
    }
}

/// Decodes `%XX` escapes (and `+` when `plusAsSpace`) into UTF-8 text.
func percentDecode(_ text: Substring, plusAsSpace: Bool) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = Array(text.utf8)[...]
    while let byte = iterator.popFirst() {
        if byte == UInt8(ascii: "%"), iterator.count >= 2,
            let high = hexValue(iterator[iterator.startIndex]),
            let low = hexValue(iterator[iterator.startIndex + 1])
        {
            bytes.append(high << 4 | low)
            iterator.removeFirst(2)
        } else if plusAsSpace, byte == UInt8(ascii: "+") {
            bytes.append(UInt8(ascii: " "))
        } else {
            bytes.append(byte)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
