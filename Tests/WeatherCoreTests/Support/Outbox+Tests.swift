@testable import WeatherCore
@testable import WeatherSessions

extension Outbox {
    /// The next line, if one waits now: what a writer would take.
    func next() -> String? {
        if case .line(let line) = take() { return line }
        return nil
    }

    /// A notification offered as the hub offers it: queued, then the writer told.
    func offer(_ topic: Topic, line: String) {
        if offerQuietly(topic, line: line) { wakeWriter() }
    }
}
