import Synchronization

/// A one-shot signal: closed until `open()`, then open for good. Waiting never holds a thread and
/// ends early when the waiting task is cancelled (so nothing waiting on a gate blocks shutdown).
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var nextWaiterID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waiters whose task was cancelled before they were registered.
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the gate and wakes every waiter. Opening an open gate does nothing.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open, or at once when the calling task is (or gets) cancelled.
    func wait() async {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.isOpen || state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if let waiter = state.waiters.removeValue(forKey: id) { return Optional(waiter) }
                if !state.isOpen { state.cancelled.insert(id) }
                return nil
            }
            waiter?.resume()
        }
    }

    /// Returns once any of `gates` is open, or when the calling task is cancelled.
    static func first(of gates: [Gate]) async {
        await withTaskGroup(of: Void.self) { group in
            for gate in gates {
                group.addTask { await gate.wait() }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
