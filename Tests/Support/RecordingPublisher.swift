import Synchronization

@testable import WeatherCore

/// A `ChangePublisher` that records every state and overlays it is given, in order.
final class RecordingPublisher: ChangePublisher, Sendable {
    enum Event: Sendable, Equatable {
        case state(DaemonState)
        case overlays(Overlays)
    }

    private struct Recorded {
        var events: [Event] = []
        /// Overlays published since the start (not reset), and who waits for a number of them.
        var overlaysCount = 0
        var overlaysWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Every state published since the start (not reset), and who waits for one that matches.
        var allStates: [DaemonState] = []
        var stateWaiters: [(matches: @Sendable (DaemonState) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let recorded = Mutex(Recorded())

    init() {}

    func publish(state: DaemonState) {
        let ready = recorded.withLock { recorded in
            recorded.events.append(.state(state))
            recorded.allStates.append(state)
            let ready = recorded.stateWaiters.filter { $0.matches(state) }.map(\.continuation)
            recorded.stateWaiters.removeAll { $0.matches(state) }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    func publish(overlays: Overlays) {
        let ready = recorded.withLock { recorded in
            recorded.events.append(.overlays(overlays))
            recorded.overlaysCount += 1
            let reached = recorded.overlaysCount
            let ready = recorded.overlaysWaiters.filter { $0.count <= reached }.map(\.continuation)
            recorded.overlaysWaiters.removeAll { $0.count <= reached }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    var events: [Event] { recorded.withLock { $0.events } }

    /// How many states have been published since the start (`reset` or not).
    var stateCount: Int { recorded.withLock { $0.allStates.count } }

    var states: [DaemonState] {
        events.compactMap { if case .state(let s) = $0 { s } else { nil } }
    }

    var overlays: [Overlays] {
        events.compactMap { if case .overlays(let o) = $0 { o } else { nil } }
    }

    /// Forgets what was recorded so far (to look at one step only).
    func reset() { recorded.withLock { $0.events.removeAll() } }

    /// Returns once at least `count` overlays have been published in all (counting from the
    /// start, `reset` or not).
    func waitForOverlays(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = recorded.withLock { recorded in
                if recorded.overlaysCount >= count { return true }
                recorded.overlaysWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Returns once a state matching `matches` has been published (at once when one already was,
    /// counting from the start, `reset` or not).
    /// With `after`, only a state published after the first `after` states counts.
    func waitForState(after earlier: Int = 0, where matches: @escaping @Sendable (DaemonState) -> Bool) async {
        await withCheckedContinuation { continuation in
            let now = recorded.withLock { recorded in
                if recorded.allStates.dropFirst(earlier).contains(where: matches) { return true }
                recorded.stateWaiters.append((matches, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
