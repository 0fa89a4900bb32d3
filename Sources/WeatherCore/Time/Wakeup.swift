import Synchronization

/// Wakes a waiting task: a task that waits on the clock, so that new settings (a configuration
/// reload) take effect at once instead of after the wait, or a task that waits for one event (a
/// request has entered the search stream, a client has hung up).
///
/// A wake-up while nobody waits is kept for the next wait; several are kept as one. One task waits
/// at a time as a rule; should a second one wait meanwhile, a wake-up ends both (``WakeupState``
/// decides; this class only holds the lock and resumes). Every wait also ends when its task is
/// cancelled.
public final class Wakeup: Sendable {
    private let state = Mutex(WakeupState<CheckedContinuation<Bool, Never>>())
    /// The id of the next wait (outside the lock: a wait takes it once).
    private let nextWait = Atomic<UInt64>(0)

    public init() {}

    /// Ends the current wait (every one, should several tasks wait), or the next one if no task waits now.
    public func wake() {
        for waiter in state.withLock({ $0.wake() }) { waiter.resume(returning: true) }
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

    /// A timer loop, until cancelled: sleeps until `due()` on `clock` (while it is nil, until woken),
    /// or until woken because the due time may have changed, then runs `action`; and again. `due`
    /// and `action` run in the caller's isolation (an actor's own state, without hopping to it).
    public func actWhenDue(
        isolation: isolated (any Actor)? = #isolation, on clock: DaemonClock, due: () async -> DaemonClock.Instant?,
        _ action: () async -> Void
    ) async {
        while !Task.isCancelled {
            guard (try? await sleep(until: await due(), on: clock)) != nil else { return }
            await action()
        }
    }

    /// True when woken, false when cancelled.
    private func waitForWake() async -> Bool {
        let id = nextWait.add(1, ordering: .relaxed).oldValue
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let action = state.withLock { $0.wait(continuation, id: id, cancelled: Task.isCancelled) }
                if case .resume(let woken) = action { continuation.resume(returning: woken) }
            }
        } onCancel: {
            state.withLock { $0.cancel(id) }?.resume(returning: false)
        }
    }
}
