import Foundation

/// The `units` parameter of the OpenWeatherMap API.
enum Units: String, CaseIterable, Sendable {
    /// Kelvin, metres per second.
    case standard
    /// Degrees Celsius, metres per second.
    case metric
    /// Degrees Fahrenheit, miles per hour.
    case imperial

    /// Parses the query value like OpenWeatherMap does: anything unknown means `standard`.
    init(query value: String?) {
        self = value.flatMap { Units(rawValue: $0.lowercased()) } ?? .standard
    }

    func celsius(from value: Double) -> Double {
        switch self {
        case .standard: value - 273.15
        case .metric: value
        case .imperial: (value - 32) * 5 / 9
        }
    }

    func temperature(fromCelsius value: Double) -> Double {
        switch self {
        case .standard: value + 273.15
        case .metric: value
        case .imperial: value * 9 / 5 + 32
        }
    }

    func metresPerSecond(from value: Double) -> Double {
        self == .imperial ? value * 0.44704 : value
    }

    func speed(fromMetresPerSecond value: Double) -> Double {
        self == .imperial ? value / 0.44704 : value
    }
}

/// One recorded OpenWeatherMap response: the raw body and the units it was recorded in.
struct RecordedWeather: Sendable {
    let file: String
    let units: Units
    let body: JSON

    var name: String { body["name"]?.stringValue ?? "" }
    var country: String? { body["sys"]?["country"]?.stringValue }
    var latitude: Double? { body["coord"]?["lat"]?.doubleValue }
    var longitude: Double? { body["coord"]?["lon"]?.doubleValue }

    /// The body in `target` units: temperatures and wind speeds converted and rounded to 2 decimals,
    /// every other field unchanged. A body already in `target` units is returned as recorded.
    func body(in target: Units) -> JSON {
        guard target != units else { return body }
        var converted = body
        converted.update("main") { main in
            var main = main
            for field in ["temp", "feels_like", "temp_min", "temp_max"] {
                main.update(field) { value in
                    guard let number = value.doubleValue else { return value }
                    return .number(target.temperature(fromCelsius: units.celsius(from: number)))
                }
            }
            return main
        }
        converted.update("wind") { wind in
            var wind = wind
            for field in ["speed", "gust"] {
                wind.update(field) { value in
                    guard let number = value.doubleValue else { return value }
                    return .number(target.speed(fromMetresPerSecond: units.metresPerSecond(from: number)))
                }
            }
            return wind
        }
        return converted
    }
}

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

/// All recorded responses of a data directory, with city and coordinate lookup.
struct WeatherCatalog: Sendable {
    let entries: [RecordedWeather]

    /// Reads every `<slug>.<units>.json` file of `directory`.
    init(directory: String) throws {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".json") }
            .sorted()
        var entries: [RecordedWeather] = []
        for file in files {
            let parts = file.split(separator: ".")
            guard parts.count == 3, let units = Units(rawValue: String(parts[1])) else {
                throw CatalogError(file: file, reason: "expected a name like <slug>.<standard|metric|imperial>.json")
            }
            let text = try String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)
            do {
                let body = try JSON(parsing: text)
                guard case .object = body, body["name"]?.stringValue != nil else {
                    throw CatalogError(file: file, reason: "not an OpenWeatherMap current-weather body")
                }
                entries.append(RecordedWeather(file: file, units: units, body: body))
            } catch let error as JSONParseError {
                throw CatalogError(file: file, reason: error.description)
            }
        }
        self.entries = entries
    }

    /// The recorded city for `query`, preferring a recording in `units` (no conversion needed).
    func city(matching query: CityQuery, preferring units: Units) -> RecordedWeather? {
        let matches = entries.filter { query.matches(name: $0.name, country: $0.country) }
        return matches.first { $0.units == units } ?? matches.first
    }

    /// The nearest recorded city within `radius` kilometres of the point, if any.
    func city(near latitude: Double, _ longitude: Double, within radius: Double = 25) -> RecordedWeather? {
        entries
            .compactMap { entry -> (RecordedWeather, Double)? in
                guard let lat = entry.latitude, let lon = entry.longitude else { return nil }
                return (entry, distanceKilometres(latitude, longitude, lat, lon))
            }
            .filter { $0.1 <= radius }
            .min { $0.1 < $1.1 }?
            .0
    }
}

/// A data file that cannot be used.
struct CatalogError: Error, CustomStringConvertible {
    let file: String
    let reason: String
    var description: String { "\(file): \(reason)" }
}

/// Great-circle distance (haversine) in kilometres.
func distanceKilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    let radians = Double.pi / 180
    let dLat = (lat2 - lat1) * radians
    let dLon = (lon2 - lon1) * radians
    let a = sin(dLat / 2) * sin(dLat / 2)
        + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
    return 6371.0088 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
}
