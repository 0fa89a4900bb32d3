import ArgumentParser
import WeatherRPC

/// A city or place name given on the command line, checked as the daemon checks it before anything is
/// sent: an empty or blank name, one over 200 characters or one with a control character is a usage
/// error (exit status 2), found without connecting.
enum NameArgument {
    /// The words of `words` joined by one space, runs of white space collapsed and the ends trimmed.
    /// - Throws: a `ValidationError` naming the argument (`what`, like "the city") when the name is
    ///   empty, longer than 200 characters or holds a control character.
    static func name(_ words: [String], what: String) throws -> String {
        let name = words.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if name.isEmpty { throw ValidationError("\(what) is empty: give a name, e.g. London") }
        if name.count > 200 { throw ValidationError("\(what) is longer than 200 characters") }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError("\(what) must not contain control characters")
        }
        return name
    }

    /// `{"city"}` or `{"lat","lon"}` from the words of `CITY | --at LAT LON` (`forecast`, `alerts`).
    static func cityOrPoint(_ values: [String]) throws -> JSONObject {
        let words = values.filter { $0 != "--" }
        guard let at = words.firstIndex(of: "--at") else {
            guard !words.isEmpty else { throw ValidationError("Missing expected argument: CITY, or --at LAT LON") }
            if let option = words.first(where: { $0.hasPrefix("--") }) { throw ValidationError("Unknown option '\(option)'") }
            return ["city": .string(try name(words, what: "the city"))]
        }
        var rest = words
        rest.remove(at: at)
        guard rest.count == 2, let lat = Double(rest[0]), let lon = Double(rest[1]) else {
            throw ValidationError("--at takes two numbers, LAT LON, and no city")
        }
        return ["lat": .double(lat), "lon": .double(lon)]
    }
}
