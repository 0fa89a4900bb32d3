import Foundation
import WeatherCore

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
