import Foundation

/// A city query (`q=Name` or `q=Name,CC`, also `Name,State,CC`), normalized for matching.
struct CityQuery: Sendable {
    let name: String
    let country: String?

    init(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
        name = normalizeCityName(parts[0])
        let code = parts.count > 1 ? normalizeCityName(parts[parts.count - 1]) : ""
        country = code.isEmpty ? nil : code
    }

    /// The query as it is counted in `/_stats` (`q=london`, `q=london,gb`).
    var statsKey: String {
        "q=" + name + (country.map { "," + $0 } ?? "")
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
