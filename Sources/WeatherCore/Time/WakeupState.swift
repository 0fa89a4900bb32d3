/// The decisions of a ``Wakeup``, apart from its lock and its continuations: a plain state machine.
/// Each event returns what to do; the caller does it outside the lock. `Waiter` is the suspended
/// task's continuation in the daemon, and any token in the tests.
///
/// A wake-up while nobody waits is kept for the next wait (several as one). A wake-up while tasks
/// wait ends every one of them: one waiter is the rule, but a second one is served, never dropped.
struct WakeupState<Waiter> {
    /// The tasks waiting, by the id of their wait: none, one (no allocation), or several.
    private enum Waiters {
        case none
        case one(UInt64, Waiter)
        case several([(UInt64, Waiter)])
    }

    private var woken = false
    private var waiters = Waiters.none

    enum WaitAction {
        /// The wait ends at once: true when a kept wake-up ends it, false when its task is cancelled.
        case resume(Bool)
        /// The waiter waits for a wake-up or its cancellation.
        case suspend
    }

    /// A task begins waiting (`cancelled`: its task already is); `id` tells its wait from any other.
    mutating func wait(_ waiter: Waiter, id: UInt64, cancelled: Bool) -> WaitAction {
        if woken {
            woken = false
            return .resume(true)
        }
        if cancelled { return .resume(false) }
        switch waiters {
        case .none: waiters = .one(id, waiter)
        case .one(let first, let firstWaiter): waiters = .several([(first, firstWaiter), (id, waiter)])
        case .several(var all):
            all.append((id, waiter))
            waiters = .several(all)
        }
        return .suspend
    }

    /// A wake-up: the waiters to resume with true (none: it is kept for the next wait).
    mutating func wake() -> [Waiter] {
        switch waiters {
        case .none:
            woken = true
            return []
        case .one(_, let waiter):
            waiters = .none
            return [waiter]
        case .several(let all):
            waiters = .none
            return all.map(\.1)
        }
    }

    /// The task of wait `id` was cancelled: its waiter to resume with false, if it still waits.
    mutating func cancel(_ id: UInt64) -> Waiter? {
        switch waiters {
        case .none:
            return nil
        case .one(let waiting, let waiter):
            guard waiting == id else { return nil }
            waiters = .none
            return waiter
        case .several(var all):
            guard let index = all.firstIndex(where: { $0.0 == id }) else { return nil }
            let waiter = all.remove(at: index).1
            waiters = all.isEmpty ? .none : .several(all)
            return waiter
        }
    }

    /// How many tasks wait now.
    var waiting: Int {
        switch waiters {
        case .none: 0
        case .one: 1
        case .several(let all): all.count
        }
    }
}
