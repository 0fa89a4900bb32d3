import Foundation

/// A city query (`q=Name` or `q=Name,CC`, also `Name,State,CC`), normalized for matching: the name
/// is the first part, the country the last (of two or more), the state the second (of three or more).
struct CityQuery: Sendable {
    let name: String
    let country: String?
    /// The state of `Name,State,CC` (normalized like the name); only the geocoder reads it.
    let state: String?

    init(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
        name = normalizeCityName(parts[0])
        let code = parts.count > 1 ? normalizeCityName(parts[parts.count - 1]) : ""
        country = code.isEmpty ? nil : code
        let state = parts.count > 2 ? normalizeCityName(parts[1]) : ""
        self.state = state.isEmpty ? nil : state
    }

    /// The query as it is counted in `/_stats` (`q=london`, `q=london,gb`).
    var statsKey: String {
        "q=" + name + (country.map { "," + $0 } ?? "")
    }

    /// The geocoding query as it is counted in `/_stats` (without its `geo:` prefix): `q=london`,
    /// `q=london,gb`, `q=springfield,mo,us` (the state kept: it narrows the answer).
    var geocodingStatsKey: String {
        if let state { return "q=" + name + "," + state + "," + (country ?? "") }
        return statsKey
    }

    func matches(name otherName: String, country otherCountry: String?) -> Bool {
        guard squeezed(name) == squeezed(normalizeCityName(otherName)) else { return false }
        guard let country else { return true }
        return otherCountry.map(normalizeCityName) == country
    }

    private func squeezed(_ text: String) -> String {
        text.filter { !$0.isWhitespace }
    }
}

/// Lower-cases a name, drops diacritics (`Reykjavík` → `reykjavik`), trims it and collapses inner
/// whitespace runs to one space.
func normalizeCityName(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        .lowercased()
        .split(whereSeparator: \.isWhitespace)
        .joined(separator: " ")
}
