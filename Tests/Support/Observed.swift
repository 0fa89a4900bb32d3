import Foundation
import Synchronization

/// A test gave up waiting: the awaited event did not happen in time.
struct TimeoutError: Error, CustomStringConvertible {
    var what: String
    var timeout: Duration
    var description: String { "timed out after \(timeout) waiting for \(what)" }
}

/// When a wait for an event gives up if the test names no time: only a hang gets there. A busy
/// machine makes an event later, never lost, so a wait ends on the event, or as soon as what it
/// waits on has ended (the process exited, the connection or the server closed), not on a clock.
let safetyDeadline: Duration = .seconds(300)

/// A value that changes from other threads (process output, received messages), which a test can
/// await a condition on. Waiting never polls: each change wakes the waiters, which re-check.
final class Observed<Value: Sendable>: Sendable {
    private struct Storage {
        var value: Value
        var version = 0
        var nextWaiterID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelledWaiters: Set<Int> = []
    }

    private let storage: Mutex<Storage>

    init(_ value: Value) {
        storage = Mutex(Storage(value: value))
    }

    var value: Value { storage.withLock { $0.value } }

    /// Changes the value and wakes every waiter.
    func update(_ body: (inout Value) -> Void) {
        let waiters = storage.withLock { storage -> [CheckedContinuation<Void, Never>] in
            body(&storage.value)
            storage.version += 1
            defer { storage.waiters.removeAll() }
            return Array(storage.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Reads the value under the lock (to compute something from it, or to mutate a cursor).
    func withValue<R: Sendable>(_ body: (inout Value) -> R) -> R {
        storage.withLock { body(&$0.value) }
    }

    /// Waits until `check` returns non-nil (it runs under the lock on every change, and may mutate
    /// the value, e.g. to consume what it found); `check` throws to end the wait early when what it
    /// waits on has ended. Throws `TimeoutError` after `timeout`; with none
    /// (nil), it waits for the event alone, until the task is cancelled (the test's time limit):
    /// for an event that does not depend on time, which a busy machine only makes later.
    func wait<R: Sendable>(
        for what: @autoclosure () -> String, timeout: Duration? = safetyDeadline, _ check: (inout Value) throws -> R?
    ) async throws -> R {
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        // Wakes the waiter at the deadline so it can give up; cancelled as soon as the wait ends.
        let alarm = deadline.map { deadline in
            Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                if !Task.isCancelled { self?.update { _ in } }
            }
        }
        defer { alarm?.cancel() }
        while true {
            let (result, version) = try storage.withLock { storage in
                (try check(&storage.value), storage.version)
            }
            if let result { return result }
            if let deadline, let timeout, ContinuousClock.now >= deadline { throw TimeoutError(what: what(), timeout: timeout) }
            try Task.checkCancellation()
            await changed(since: version)
        }
    }

    /// Returns once the value changed after `version` (or the task is cancelled).
    private func changed(since version: Int) async {
        let id = storage.withLock { storage in
            defer { storage.nextWaiterID += 1 }
            return storage.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = storage.withLock { storage in
                    if storage.version != version || storage.cancelledWaiters.remove(id) != nil { return true }
                    storage.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = storage.withLock { storage in
                if let waiter = storage.waiters.removeValue(forKey: id) { return Optional(waiter) }
                storage.cancelledWaiters.insert(id)
                return nil
            }
            waiter?.resume()
        }
    }
}

/// Runs `operation`, failing with `TimeoutError` if it takes longer than `timeout` (the operation
/// is cancelled then).
func withTimeout<T: Sendable>(
    _ timeout: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimeoutError(what: what, timeout: timeout)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
