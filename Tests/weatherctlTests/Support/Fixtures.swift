import Foundation
import Testing
@testable import WeatherCore
@testable import TestSupport

/// The recorded OpenWeatherMap responses in `Tests/Fixtures/owm/`: the part of `WeatherCoreTests`'
/// `Fixture` that the human format's tests use.
enum Fixture {
    static let owmDirectory = URL(fileURLWithPath: TestEnvironment.packageRoot).appendingPathComponent("Tests/Fixtures/owm")

    /// The bytes of `Tests/Fixtures/owm/<name>`.
    static func owm(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: owmDirectory.appendingPathComponent(name)))
    }

    /// `weather_q_london.json`: London, metric, the spec's Feature example.
    static func london() throws -> [UInt8] { try owm("weather_q_london.json") }

    /// `weather_lat44.34_lon10.99_zocca.json`: Zocca, in Kelvin (units standard).
    static func zocca() throws -> [UInt8] { try owm("weather_lat44.34_lon10.99_zocca.json") }

    /// The fixture decoded as weather.
    static func observation(_ bytes: [UInt8], units: Units = .metric, sourceLocation: SourceLocation = #_sourceLocation) throws -> WeatherObservation {
        let body = OpenWeatherMapResponse.decode(bytes, units: units)
        guard case .weather(let observation)? = body else {
            Issue.record("not weather: \(String(describing: body))", sourceLocation: sourceLocation)
            throw FixtureError.notWeather
        }
        return observation
    }

    static func londonObservation() throws -> WeatherObservation { try observation(london()) }
    static func zoccaObservation() throws -> WeatherObservation { try observation(zocca(), units: .standard) }

    enum FixtureError: Error { case notWeather }
}
