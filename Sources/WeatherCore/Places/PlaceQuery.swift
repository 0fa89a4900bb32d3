/// A city name as a client writes it: `Name`, `Name, CC` or `Name, ST, CC` (a state, for the US, and
/// an ISO 3166 country code), split into what a geocoder narrows by.
public struct PlaceQuery: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var state: String?
    public var country: String?

    public init(name: String, state: String? = nil, country: String? = nil) {
        self.name = name
        self.state = state
        self.country = country
    }

    /// Splits `text` at its commas, each part trimmed: one part is the name; two are the name and
    /// the country; three the name, the state and the country. Past three, the parts before the
    /// last two are the name (a name may hold a comma). Empty parts count as absent.
    public init(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        func given(_ part: String) -> String? { part.isEmpty ? nil : part }
        switch parts.count {
        case 1:
            self.init(name: parts[0])
        case 2:
            self.init(name: parts[0], country: given(parts[1]))
        default:
            self.init(
                name: parts.dropLast(2).joined(separator: ", "), state: given(parts[parts.count - 2]),
                country: given(parts[parts.count - 1]))
        }
    }

    /// `Name,ST,CC` without the absent parts: OpenWeatherMap's `q=` of its Geocoding API.
    public var description: String {
        ([name] + [state, country].compactMap { $0 }).joined(separator: ",")
    }
}
