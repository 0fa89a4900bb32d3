/// Identifies lookups that share one answer.
public enum LookupKey: Sendable, Hashable {
    /// The places of a name, normalized (``normalize(city:)``).
    case city(String)
    /// Latitude and longitude in hundredths of a degree.
    case point(lat: Int, lon: Int)

    /// `" New  York , US "` → `"new york,us"`.
    public static func normalize(city: String) -> String {
        normalizeASCII(city) ?? normalizeUnicode(city)
    }

    /// `normalize` for any text, character by character.
    static func normalizeUnicode(_ city: String) -> String {
        city.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .joined(separator: ",")
            .lowercased()
    }

    /// `normalize` for ASCII text, byte by byte (nil for anything else): the same result for
    /// nearly every name a client sends, without breaking it into characters (a tenth of the
    /// daemon's time per cached search went there). The white space of ASCII is what
    /// `Character.isWhitespace` says: tab, line feed, vertical tab, form feed, carriage return
    /// and space.
    static func normalizeASCII(_ city: String) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(city.utf8.count)
        var space = false  // white space seen after a word of this part
        var wordSeen = false  // a word in this part so far
        for byte in city.utf8 {
            switch byte {
            case 0x80...:
                return nil
            case UInt8(ascii: ","):
                out.append(byte)
                space = false
                wordSeen = false
            case 0x09...0x0D, UInt8(ascii: " "):
                space = wordSeen
            default:
                if space { out.append(UInt8(ascii: " ")) }
                space = false
                wordSeen = true
                out.append((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 : byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
