import Synchronization

/// One upstream lookup in flight, and the identical lookups waiting for its outcome. A waiter whose
/// task is cancelled (its client went away, or shutdown) stops waiting at once.
final class LookupFlight<Answer: Sendable>: Sendable {
    enum Outcome: Sendable {
        case success(Answer)
        case failure(WeatherError)
        /// The leading lookup was cancelled, or this waiter was: look again.
        case retry
    }

    private struct State {
        var waiters: [UInt64: CheckedContinuation<Outcome, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var outcome: Outcome?
    }

    private let state = Mutex(State())

    /// Waits for the leading lookup's outcome; `.retry` at once when the task is cancelled.
    func wait() async -> Outcome {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let now = state.withLock { state -> Outcome? in
                    if let outcome = state.outcome { return outcome }
                    if Task.isCancelled { return .retry }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: .retry)
        }
    }

    /// The leading lookup is done: every waiter gets `outcome`.
    func end(_ outcome: Outcome) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
