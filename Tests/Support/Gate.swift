import Synchronization

/// Holds whoever passes through until the test opens it. Opening is permanent: later arrivals go
/// straight through. Arrivals are counted, and a test can await "n have arrived".
final class Gate: Sendable {
    private struct State {
        var open = false
        var held: [CheckedContinuation<Void, Never>] = []
        var arrivals = 0
        var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    init(open: Bool = false) {
        state.withLock { $0.open = open }
    }

    /// How many have reached the gate so far (held or not).
    var arrivals: Int { state.withLock { $0.arrivals } }

    /// Waits here until `open()` (at once when already open).
    func pass() async {
        let ready: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.arrivals += 1
            let ready = state.arrivalWaiters.filter { $0.count <= state.arrivals }.map(\.continuation)
            state.arrivalWaiters.removeAll { $0.count <= state.arrivals }
            return ready
        }
        for waiter in ready { waiter.resume() }
        await withCheckedContinuation { continuation in
            let passNow = state.withLock { state in
                if state.open { return true }
                state.held.append(continuation)
                return false
            }
            if passNow { continuation.resume() }
        }
    }

    /// Lets everyone held through, and every later arrival.
    func open() {
        let held = state.withLock { state in
            state.open = true
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Returns once at least `count` have arrived at the gate.
    func waitForArrivals(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.arrivals >= count { return true }
                state.arrivalWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
