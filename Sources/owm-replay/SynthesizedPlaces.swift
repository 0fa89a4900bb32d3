/// Places the geocoder knows without a recording: an ambiguous name, so that a client's choice
/// among several places (and its narrowing by state and country) can be tested. Their coordinates
/// are those of the real places, to 4 decimals; none has recorded weather.
enum SynthesizedPlaces {
    /// Springfield: five US states (best first, Illinois), then Scotland and Queensland. Full state
    /// names, as OpenWeatherMap answers them for most places.
    static let all: [GeoPlace] = [
        place("Springfield", 39.7990, -89.6440, "US", "Illinois"),
        place("Springfield", 37.2082, -93.2923, "US", "Missouri"),
        place("Springfield", 42.1015, -72.5898, "US", "Massachusetts"),
        place("Springfield", 39.9242, -83.8088, "US", "Ohio"),
        place("Springfield", 44.0462, -123.0220, "US", "Oregon"),
        place("Springfield", 56.2966, -3.0539, "GB", "Scotland"),
        place("Springfield", -27.6536, 152.9172, "AU", "Queensland"),
    ]

    private static func place(
        _ name: String, _ latitude: Double, _ longitude: Double, _ country: String, _ state: String
    ) -> GeoPlace {
        GeoPlace(source: .synthesized, name: name, latitude: latitude, longitude: longitude, country: country, state: state)
    }
}
