/// Identifies lookups that share one answer.
public enum LookupKey: Sendable, Hashable {
    case city(String)
    /// Latitude and longitude in hundredths of a degree.
    case point(lat: Int, lon: Int)

    /// `" New  York , US "` → `"new york,us"`.
    public static func normalize(city: String) -> String {
        city.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .joined(separator: ",")
            .lowercased()
    }
}
