import Foundation
import Testing

@testable import WeatherCore

@Suite("Configuration: http(s) base URLs")
struct HTTPURLTextTests {
    static let accepted = [
        "http://127.0.0.1:8080", "https://api.openweathermap.org", "https://api.openweathermap.org/data/2.5",
        "HTTP://EXAMPLE.COM/", "http://[::1]:9000/path", "http://[::1]:", "http://user:pw@host:1/x?q=1#f",
        "https://host/a%20b", "http://h:/", "http://h/?a=[1]", "http://h/a b", "http://höst", "http://%41",
        "http://u@h@x", "http://h:99999",
    ]
    static let refused = [
        "", "ftp://host", "http://", "https:///path", "http://:8080", "http://host:80a", "http://ho st",
        "http://[::1", "http://[::1]x", "http://h[1]/", "http://user@", "host:8080", "http:/host", "http://host\n",
        "http://a%zz", "http://h|", "http://h\\x", " http://h",
    ]

    @Test("URLs with a host are accepted", arguments: accepted)
    func accepts(text: String) {
        #expect(HTTPURLText.isValid(text))
    }

    @Test("anything else is refused", arguments: refused)
    func refuses(text: String) {
        #expect(!HTTPURLText.isValid(text))
    }

    /// The rule it replaces: the scheme, and Foundation's `URLComponents` finding a host.
    static func foundationRule(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
            let host = URLComponents(string: text)?.rangeOfHost
        else { return false }
        return !host.isEmpty
    }

    @Test("it agrees with Foundation's URLComponents on the URLs above and on many variations")
    func agreesWithFoundation() {
        var texts = Self.accepted + Self.refused
        let pieces = [
            "", "/", ":", "@", "[", "]", "%", "%41", "%g1", " ", "\t", "?", "#", ":80", ":8a", "[::1]", "a", "~", "'", "\\",
            "|", "^", "`", "\"", "<", "{", "!", "=", "ö", "\u{7F}", "[v1.x]",
        ]
        for base in ["http://", "https://h", "HTTPS://host.example", "http://[::1]", "http://u@", "http://h:1"] {
            for piece in pieces {
                for tail in ["", "h", "/p", "?q", "#f", ":8", "@x"] { texts.append(base + piece + tail) }
            }
        }
        let disagreements = texts.filter { HTTPURLText.isValid($0) != Self.foundationRule($0) }
        #expect(disagreements.isEmpty, "differs from URLComponents on \(disagreements.map(\.debugDescription))")
    }
}
