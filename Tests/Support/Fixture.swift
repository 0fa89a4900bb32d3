import Foundation
import Testing

@testable import WeatherCore

/// The recorded fixtures, read from `Tests/Fixtures/` inside the repository (see `Tests/Fixtures/README.md`).
enum Fixture {
    /// The Feature example of docs/protocol.md ("Feature"), character for character.
    static let specLondonFeature = #"""
        {"type":"Feature","id":"owm:2643743","geometry":{"type":"Point","coordinates":[-0.1257,51.5085]},"properties":{"name":"London","state":null,"country":"GB","source":"text","provider":"openweathermap","alternatives":0,"temperature":8.94,"feels_like":7.91,"temp_min":7.38,"temp_max":9.98,"humidity":90,"pressure":997,"wind_speed":2.06,"wind_deg":250,"clouds":100,"condition":"Clouds","description":"overcast clouds","icon":"04n","symbol":"☁","observed_at":"2019-04-28T09:35:55Z","units":"metric","fetched_at":null,"stale":false,"air_quality":null,"alerts":null,"alerts_stale":false}}
        """#

    static let owmDirectory = URL(fileURLWithPath: TestEnvironment.packageRoot).appendingPathComponent("Tests/Fixtures/owm")

    /// The bytes of `Tests/Fixtures/owm/<name>`.
    static func owm(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: owmDirectory.appendingPathComponent(name)))
    }

    static let ownTracksDirectory = URL(fileURLWithPath: TestEnvironment.packageRoot).appendingPathComponent("Tests/Fixtures/owntracks")

    /// The bytes of `Tests/Fixtures/owntracks/<name>`: a payload of the OwnTracks app.
    static func ownTracks(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: ownTracksDirectory.appendingPathComponent(name)))
    }

    /// The secret `encrypted-location-5s.json` was encrypted with.
    static let ownTracksSecret = "weatherd-fixture-key"

    /// `weather_q_london.json`: London, metric, the spec's Feature example.
    static func london() throws -> [UInt8] { try owm("weather_q_london.json") }

    /// `weather_lat44.34_lon10.99_zocca.json`: Zocca, in Kelvin (units standard).
    static func zocca() throws -> [UInt8] { try owm("weather_lat44.34_lon10.99_zocca.json") }

    /// `forecast_q_paris.json`: the 5 day / 3 hour forecast of Paris, metric; 2 of its 40 steps.
    static func parisForecast() throws -> [UInt8] { try owm("forecast_q_paris.json") }

    /// The Geocoding API's five places named London, best first.
    static func londonPlaces() throws -> [UInt8] { try owm("geo_direct_q_london_limit5.json") }

    /// The error bodies of `errors.md`, by the HTTP status of their row.
    static func errorBodies() throws -> [Int: String] {
        let text = String(decoding: try owm("errors.md"), as: UTF8.self)
        var bodies: [Int: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, let status = Int(cells[1]) else { continue }
            bodies[status] = cells[3].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
        }
        return bodies
    }

    /// The body of the `errors.md` row for `status`.
    static func errorBody(_ status: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(try errorBodies()[status], "errors.md has no row for HTTP \(status)", sourceLocation: sourceLocation)
    }

    /// The fixture decoded as weather.
    static func observation(_ bytes: [UInt8], units: Units = .metric, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> WeatherObservation
    {
        let body = OpenWeatherMapResponse.decode(bytes, units: units)
        guard case .weather(let observation)? = body else {
            Issue.record("not weather: \(String(describing: body))", sourceLocation: sourceLocation)
            throw FixtureError.notWeather
        }
        return observation
    }

    static func londonObservation() throws -> WeatherObservation { try observation(london()) }

    /// When the tests' OpenWeatherMap clients say an observation was fetched (their wall clock).
    static let fetchedAt = Date(timeIntervalSince1970: 1_795_000_000)

    /// The London fixture as a client whose wall clock reads `fetchedAt` returns it.
    static func fetchedLondonObservation() throws -> WeatherObservation {
        var observation = try londonObservation()
        observation.fetchedAt = fetchedAt
        return observation
    }
    static func zoccaObservation() throws -> WeatherObservation { try observation(zocca(), units: .standard) }

    enum FixtureError: Error { case notWeather }
}
