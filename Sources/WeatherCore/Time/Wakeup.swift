import Synchronization

/// Wakes one waiting task: a task that waits on the clock, so that new settings (a configuration
/// reload) take effect at once instead of after the wait, or a task that waits for one event (a
/// request has entered the search stream, a client has hung up).
///
/// A wake-up while nobody waits is kept for the next wait; several are kept as one. Every wait also
/// ends when its task is cancelled.
public final class Wakeup: Sendable {
    private struct State {
        var woken = false
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    /// Ends the current wait, or the next one if no task waits now.
    public func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let waiter = state.waiter else {
                state.woken = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: true)
    }

    /// Waits until `deadline` on `clock` (forever when nil) or until woken, whichever comes first.
    /// - Returns: true when woken, false at the deadline.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: DaemonClock.Instant?, on clock: DaemonClock) async throws -> Bool {
        try Task.checkCancellation()
        let outcome = await withTaskGroup(of: Bool?.self) { group in
            if let deadline {
                group.addTask { (try? await clock.sleep(until: deadline)) == nil ? nil : false }
            }
            group.addTask { await self.waitForWake() ? true : nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let outcome, !Task.isCancelled else { throw CancellationError() }
        return outcome
    }

    /// Waits until woken (true) or until the task is cancelled (false).
    public func wait() async -> Bool {
        await waitForWake()
    }

    /// True when woken, false when cancelled.
    private func waitForWake() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool? in
                    if state.woken {
                        state.woken = false
                        return true
                    }
                    if Task.isCancelled { return false }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: false)
        }
    }
}
