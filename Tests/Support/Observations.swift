import Foundation
import Logging
import Synchronization
import Testing

@testable import WeatherCore

/// A small observation for engine tests: a city with an id and a temperature.
func sampleObservation(_ name: String, id: Int, country: String = "XX", lat: Double = 10, lon: Double = 20, temperature: Double = 15)
    -> WeatherObservation
{
    WeatherObservation(
        cityID: id, name: name, country: country, coordinate: Coordinate(lat: lat, lon: lon),
        temperature: temperature, humidity: 50, condition: "Clear", conditionDescription: "clear sky", icon: "01d",
        units: .metric)
}

/// A regular forecast: `count` steps 3 hours apart from `start`.
func regularForecast(_ count: Int = 40, start: Date = Date(timeIntervalSince1970: 1_794_996_000)) -> WeatherForecast {
    let place = sampleObservation("Somewhere", id: 42)
    return WeatherForecast(
        place: WeatherObservation(cityID: 42, name: "Somewhere", country: "XX", coordinate: place.coordinate, units: .metric),
        steps: (0..<count).map { ForecastStep(at: start.addingTimeInterval(Double($0) * 10800), temperature: Double($0), icon: "01d") })
}

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
