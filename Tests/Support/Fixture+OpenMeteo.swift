import Foundation

extension Fixture {
    static let openMeteoDirectory = URL(fileURLWithPath: TestEnvironment.packageRoot).appendingPathComponent("Tests/Fixtures/open-meteo")

    /// The bytes of `Tests/Fixtures/open-meteo/<name>`.
    static func openMeteo(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: openMeteoDirectory.appendingPathComponent(name)))
    }

    /// `forecast_berlin_48h.json`: Berlin's current weather and 48 hourly steps, local ISO 8601 times
    /// (UTC+1), wind in km/h.
    static func berlinForecast() throws -> [UInt8] { try openMeteo("forecast_berlin_48h.json") }

    /// `geocoding_name_enschede.json`: two places for the name Enschede.
    static func enschedePlaces() throws -> [UInt8] { try openMeteo("geocoding_name_enschede.json") }

    /// `geocoding_empty.json`: the geocoder's answer for an unknown name, without `results`.
    static func emptyPlaces() throws -> [UInt8] { try openMeteo("geocoding_empty.json") }
}
