/// What Open-Meteo's geocoder says of a place beyond OpenWeatherMap's name, country, state and
/// coordinates: its GeoNames feature code, elevation, population, timezone, the country's name and
/// GeoNames id. Approximate figures after GeoNames, for the places the stand-in knows; a place not
/// listed gets `PPL`, a made-up elevation, no population, and its country's (or state's) timezone.
enum GeoNamesFacts {
    struct City: Sendable {
        let featureCode: String
        let elevation: Double
        let population: Int
        let timezone: String
        let admin1: String
    }

    /// The cities of the demo catalog, by GeoNames id (OpenWeatherMap's city ids are GeoNames ids).
    static let cities: [Int: City] = [
        2_643_743: City(featureCode: "PPLC", elevation: 25, population: 8_961_989, timezone: "Europe/London", admin1: "England"),
        2_988_507: City(featureCode: "PPLC", elevation: 42, population: 2_138_551, timezone: "Europe/Paris", admin1: "Île-de-France"),
        2_950_159: City(featureCode: "PPLC", elevation: 74, population: 3_426_354, timezone: "Europe/Berlin", admin1: "Berlin"),
        3_163_858: City(featureCode: "PPL", elevation: 759, population: 4_600, timezone: "Europe/Rome", admin1: "Emilia-Romagna"),
        1_835_848: City(featureCode: "PPLC", elevation: 38, population: 10_349_312, timezone: "Asia/Seoul", admin1: "Seoul"),
        1_850_147: City(featureCode: "PPLC", elevation: 44, population: 8_336_599, timezone: "Asia/Tokyo", admin1: "Tokyo"),
        5_128_581: City(featureCode: "PPL", elevation: 10, population: 8_804_190, timezone: "America/New_York", admin1: "New York"),
        2_190_324: City(featureCode: "PPLA", elevation: 40, population: 152_641, timezone: "Pacific/Auckland", admin1: "Waikato"),
        625_144: City(featureCode: "PPLC", elevation: 222, population: 1_742_124, timezone: "Europe/Minsk", admin1: "Minsk City"),
        3_413_829: City(featureCode: "PPLC", elevation: 61, population: 118_918, timezone: "Atlantic/Reykjavik", admin1: "Capital Region"),
    ]

    struct Country: Sendable {
        let name: String
        let geonamesID: Int
        /// The timezone of most of it.
        let timezone: String
    }

    /// By ISO 3166 code.
    static let countries: [String: Country] = [
        "AU": Country(name: "Australia", geonamesID: 2_077_456, timezone: "Australia/Sydney"),
        "BY": Country(name: "Belarus", geonamesID: 630_336, timezone: "Europe/Minsk"),
        "CA": Country(name: "Canada", geonamesID: 6_251_999, timezone: "America/Toronto"),
        "DE": Country(name: "Germany", geonamesID: 2_921_044, timezone: "Europe/Berlin"),
        "FR": Country(name: "France", geonamesID: 3_017_382, timezone: "Europe/Paris"),
        "GB": Country(name: "United Kingdom", geonamesID: 2_635_167, timezone: "Europe/London"),
        "IS": Country(name: "Iceland", geonamesID: 2_629_691, timezone: "Atlantic/Reykjavik"),
        "IT": Country(name: "Italy", geonamesID: 3_175_395, timezone: "Europe/Rome"),
        "JP": Country(name: "Japan", geonamesID: 1_861_060, timezone: "Asia/Tokyo"),
        "KR": Country(name: "South Korea", geonamesID: 1_835_841, timezone: "Asia/Seoul"),
        "NL": Country(name: "The Netherlands", geonamesID: 2_750_405, timezone: "Europe/Amsterdam"),
        "NZ": Country(name: "New Zealand", geonamesID: 2_186_224, timezone: "Pacific/Auckland"),
        "US": Country(name: "United States", geonamesID: 6_252_001, timezone: "America/New_York"),
    ]

    /// The timezone of the states whose places the stand-in knows, where it is not the country's.
    static let stateTimezones: [String: String] = [
        "US/California": "America/Los_Angeles",
        "US/Illinois": "America/Chicago",
        "US/Missouri": "America/Chicago",
        "US/Oregon": "America/Los_Angeles",
        "AU/Queensland": "Australia/Brisbane",
    ]
}
