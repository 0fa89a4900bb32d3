import Logging
import NIOPosix
import Synchronization
import WeatherCore

/// Writes one ``StateFile`` on a thread pool, never on the caller's thread (an event loop, an actor
/// on one, the daemon's executor): its flushes wait for the disk. The newest contents win: a
/// write asked for while one runs waits for it, and every write asked for meanwhile becomes one
/// (``CoalescedWrites``); each reads the contents (`contents`) when it starts.
final class StateFileWriter: Sendable {
    private struct State {
        var writes = CoalescedWrites()
        var waiters: [(generation: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let file: StateFile
    private let pool: NIOThreadPool
    private let contents: @Sendable () -> JSONValue
    private let logger: Logger
    private let state = Mutex(State())

    /// - Parameters:
    ///   - pool: where the writes run (they block it while the disk flushes).
    ///   - contents: what the file is to hold, read on the pool when a write starts.
    init(file: StateFile, pool: NIOThreadPool, logger: Logger, contents: @escaping @Sendable () -> JSONValue) {
        self.file = file
        self.pool = pool
        self.logger = logger
        self.contents = contents
    }

    /// Asks for a write of the contents and returns at once; a failure is logged.
    func schedule() {
        let start = state.withLock { $0.writes.request().start }
        if start { startWriting() }
    }

    /// Asks for a write of the contents and returns once a write that began after this call has
    /// ended (the contents as they are now, or newer, are durable then).
    /// - Throws: `StoreError` when that write failed.
    func write() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let start = state.withLock { state in
                let (generation, start) = state.writes.request()
                state.waiters.append((generation, continuation))
                return start
            }
            if start { startWriting() }
        }
    }

    /// Returns once every write asked for so far has ended (at once when none is under way).
    /// - Throws: `StoreError` when the last of them failed.
    func flush() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let waiting = state.withLock { state in
                guard state.writes.active else { return false }
                state.waiters.append((state.writes.requested, continuation))
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    /// Writes on the pool until no write is asked for.
    private func startWriting() {
        pool.submit { [self] work in
            while true {
                state.withLock { _ = $0.writes.began() }
                let outcome: Result<Void, any Error> =
                    work == .active ? Result { try file.write(contents()) } : .failure(StoreError(message: "the daemon is stopping"))
                let (waiters, again) = state.withLock { state in
                    let (covered, again) = state.writes.finished()
                    let done = state.waiters.filter { $0.generation <= covered }
                    state.waiters.removeAll { $0.generation <= covered }
                    return (done.map(\.continuation), again)
                }
                if case .failure(let error) = outcome, waiters.isEmpty {
                    logger.warning("cannot write \(file.path): \(error)")
                }
                for waiter in waiters { waiter.resume(with: outcome) }
                guard again else { return }
            }
        }
    }
}

/// A value behind a lock, shared by reference (a store and the contents of its writer).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}
