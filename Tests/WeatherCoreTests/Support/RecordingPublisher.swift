import Synchronization
@testable import WeatherCore

/// A `ChangePublisher` that records every state and overlays it is given, in order.
final class RecordingPublisher: ChangePublisher, Sendable {
    enum Event: Sendable, Equatable {
        case state(DaemonState)
        case overlays(Overlays)
    }

    private let recorded = Mutex<[Event]>([])

    init() {}

    func publish(state: DaemonState) { recorded.withLock { $0.append(.state(state)) } }
    func publish(overlays: Overlays) { recorded.withLock { $0.append(.overlays(overlays)) } }

    var events: [Event] { recorded.withLock { $0 } }

    var states: [DaemonState] {
        events.compactMap { if case .state(let s) = $0 { s } else { nil } }
    }

    var overlays: [Overlays] {
        events.compactMap { if case .overlays(let o) = $0 { o } else { nil } }
    }

    /// Forgets what was recorded so far (to look at one step only).
    func reset() { recorded.withLock { $0.removeAll() } }
}
