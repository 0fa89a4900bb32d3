@testable import WeatherCore
@testable import WeatherSessions

extension Outbox {
    /// The next line, if one waits now: what a writer would take.
    func next() -> String? {
        if case .line(let line) = take() { return line }
        return nil
    }
}
