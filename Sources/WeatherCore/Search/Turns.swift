import Synchronization

/// One at a time, in the order asked: who takes the turn holds it until it gives it back, and the
/// next waiting gets it then. No thread is held while waiting; a cancelled wait ends at once.
final class Turns: Sendable {
    private struct State {
        var taken = false
        var waiting: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Waits for the turn: true once it is the caller's (give it back with ``give()``), false when
    /// the task was cancelled first (no turn then).
    func take() async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = state.withLock { state in
                    if Task.isCancelled { return false }
                    if !state.taken {
                        state.taken = true
                        return true
                    }
                    state.waiting.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0).continuation }
            }
            waiter?.resume(returning: false)
        }
    }

    /// How many wait for the turn now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Gives the turn back: to the next waiting, if any.
    func give() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiting.isEmpty else {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
