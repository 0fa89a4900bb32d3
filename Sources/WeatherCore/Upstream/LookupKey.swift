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

/// What a lookup asks for: the current weather or the forecast. Each kind has its own cache and
/// lookups in flight, so a weather answer never stands in for a forecast.
public enum LookupKind: String, Sendable, Hashable {
    case weather
    case forecast
}
