import Synchronization

@testable import WeatherCore
@testable import WeatherSessions

/// The number of the next notification a test hands over, as the hub numbers its publishes.
private let published = Atomic<Int>(0)

extension Outbox {
    /// An outbox whose client watches: notifications offered to it are taken in.
    static func watching() -> Outbox {
        let outbox = Outbox()
        outbox.watch(diff: false)
        return outbox
    }

    /// The next line, if one waits now: what a writer would take.
    func next() -> String? {
        if case .line(let line) = take() { return line }
        return nil
    }

    /// A notification handed over as the hub hands one over: newer than any before.
    func offer(_ topic: Topic, line: String) {
        offer(topic, .line(line), version: published.add(1, ordering: .relaxed).newValue)?.ready()
    }
}
