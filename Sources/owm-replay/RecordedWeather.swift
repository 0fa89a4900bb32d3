import Foundation
import WeatherCore

/// The `units` parameter of the OpenWeatherMap API, and the conversions between its units.
extension Units {
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

extension JSONValue {
    /// A number rounded to at most `decimals` places (written without trailing zeros, e.g. `8.9`).
    static func rounded(_ value: Double, decimals: Int = 2) -> JSONValue {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return .double((value * scale).rounded() / scale)
    }
}

/// One recorded OpenWeatherMap response: the parsed body and the units it was recorded in.
struct RecordedWeather: Sendable {
    let file: String
    let units: Units
    let body: JSONObject

    var name: String { body["name"]?.stringValue ?? "" }
    var country: String? { body["sys"]?["country"]?.stringValue }
    var latitude: Double? { body["coord"]?["lat"]?.doubleValue }
    var longitude: Double? { body["coord"]?["lon"]?.doubleValue }

    /// The body in `target` units: temperatures and wind speeds converted and rounded to 2 decimals,
    /// every other member unchanged and in its place. A body already in `target` units is returned
    /// as read (written out, its numbers take their shortest form: `1.50` as `1.5`, `2.0` as `2`).
    func body(in target: Units) -> JSONObject {
        guard target != units else { return body }
        var converted = body
        convert(&converted, "main", ["temp", "feels_like", "temp_min", "temp_max"]) {
            target.temperature(fromCelsius: units.celsius(from: $0))
        }
        convert(&converted, "wind", ["speed", "gust"]) {
            target.speed(fromMetresPerSecond: units.metresPerSecond(from: $0))
        }
        return converted
    }

    /// Replaces the numeric `fields` of the object member `key` (those present) with
    /// `conversion` of their value, rounded to 2 decimals; members keep their places.
    private func convert(
        _ object: inout JSONObject,
        _ key: String,
        _ fields: [String],
        _ conversion: (Double) -> Double
    ) {
        guard var member = object[key]?.objectValue else { return }
        for field in fields {
            guard let number = member[field]?.doubleValue else { continue }
            member[field] = .rounded(conversion(number))
        }
        object[key] = .object(member)
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
            let body: JSONValue
            do {
                body = try JSONValue.parse(text.utf8)
            } catch {
                throw CatalogError(file: file, reason: "invalid JSON: \(error)")
            }
            guard let object = body.objectValue, object["name"]?.stringValue != nil else {
                throw CatalogError(file: file, reason: "not an OpenWeatherMap current-weather body")
            }
            entries.append(RecordedWeather(file: file, units: units, body: object))
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
