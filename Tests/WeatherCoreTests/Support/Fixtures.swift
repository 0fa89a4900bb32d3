import Foundation
import Logging
import Synchronization
@testable import WeatherCore
@testable import TestSupport

/// The recorded fixtures, read from `Tests/Fixtures/` inside the repository (see `Tests/Fixtures/README.md`).
enum Fixture {
    /// The repository root: this file is `<root>/Tests/WeatherCoreTests/Support/Fixtures.swift`.
    static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }()

    static let owmDirectory = repositoryRoot.appendingPathComponent("Tests/Fixtures/owm").standardizedFileURL

    /// The bytes of `Tests/Fixtures/owm/<name>`.
    static func owm(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: owmDirectory.appendingPathComponent(name)))
    }

    /// `weather_q_london.json`: London, metric, the spec's Feature example.
    static func london() throws -> [UInt8] { try owm("weather_q_london.json") }

    /// `weather_lat44.34_lon10.99_zocca.json`: Zocca, in Kelvin (units standard).
    static func zocca() throws -> [UInt8] { try owm("weather_lat44.34_lon10.99_zocca.json") }

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

import Testing

/// A small observation for engine tests: a city with an id and a temperature.
func sampleObservation(_ name: String, id: Int, country: String = "XX", lat: Double = 10, lon: Double = 20, temperature: Double = 15) -> WeatherObservation {
    WeatherObservation(
        cityID: id, name: name, country: country, coordinate: Coordinate(lat: lat, lon: lon),
        temperature: temperature, humidity: 50, condition: "Clear", conditionDescription: "clear sky", icon: "01d",
        units: .metric)
}

/// A logger that drops everything.
let silentLogger = Logger(label: "weatherd.tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// A logger whose lines the test can read (to check that the API key never appears).
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "weatherd.tests") { _ in RecordingLogHandler(recorder: self) }
    }

    var recorded: [String] { lines.withLock { $0 } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }
}

private struct RecordingLogHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        recorder.append("\(event.level) \(event.message) \(metadata) \(event.metadata ?? [:])")
    }
}

/// Parses JSON text written in a test.
func json(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    do {
        return try JSONValue.parse(Array(text.utf8))
    } catch {
        Issue.record("test JSON does not parse: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}
