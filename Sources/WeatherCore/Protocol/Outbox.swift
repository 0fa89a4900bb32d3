import Synchronization

/// What the daemon has to send to one client: replies in order, and the latest notification of
/// each topic. A client that does not read gets the latest state and overlays when it reads again,
/// never a backlog, so its memory stays bounded.
///
/// An outbox lives as long as its `ClientSession`; `close()` (the client went away) drops
/// everything queued at once and ends every wait on it.
public final class Outbox: Sendable {
    /// A notification topic a client can watch.
    public enum Topic: String, Sendable, Hashable, CaseIterable {
        case overlays, state
    }

    private enum Phase {
        /// Lines may still be queued.
        case open
        /// No more lines will be queued; what is queued is still written.
        case finished
        /// The client is gone: nothing is kept, nothing is written.
        case closed
    }

    private struct Storage {
        var replies: [String] = []
        var replyBytes = 0
        /// The newest unsent notification line of each topic, with the order it was offered in.
        var latest: [Topic: (order: Int, line: String)] = [:]
        var order = 0
        var phase = Phase.open
        var roomWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter: UInt64 = 0

        var hasRoom: Bool { replies.count < Outbox.maxQueuedReplies && replyBytes < Outbox.maxQueuedReplyBytes }
    }

    /// Once this many replies wait to be written, the client's requests are no longer read
    /// (`waitForRoom`) until it reads.
    public static let maxQueuedReplies = 64
    /// Likewise once the replies waiting add up to this many bytes (a few large batch replies).
    public static let maxQueuedReplyBytes = 1 << 20

    private let storage = Mutex(Storage())
    private let wake: AsyncStream<Void>.Continuation
    private let wakeups: AsyncStream<Void>

    public init() {
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a reply line (without its newline). Dropped when the client is gone.
    public func send(reply line: String) {
        let queued = storage.withLock { storage in
            guard storage.phase != .closed else { return false }
            storage.replies.append(line)
            storage.replyBytes += line.utf8.count
            return true
        }
        if queued { wake.yield() }
    }

    /// Replaces the pending notification of `topic` with `line`. Dropped when the client is gone.
    public func offer(_ topic: Topic, line: String) {
        let queued = storage.withLock { storage in
            guard storage.phase != .closed else { return false }
            storage.order += 1
            storage.latest[topic] = (storage.order, line)
            return true
        }
        if queued { wake.yield() }
    }

    /// Drops notifications not yet sent (after `unwatch`).
    public func dropNotifications() {
        storage.withLock { $0.latest.removeAll() }
    }

    /// True once the client is gone (`close`).
    public var isClosed: Bool { storage.withLock { $0.phase == .closed } }

    /// No more lines will be queued; `drain` returns once everything queued is written.
    public func finish() {
        storage.withLock { if $0.phase == .open { $0.phase = .finished } }
        wake.finish()
    }

    /// The client is gone: everything queued is dropped, `drain` and every `waitForRoom` end.
    public func close() {
        let waiters = storage.withLock { storage in
            storage.phase = .closed
            storage.replies = []
            storage.replyBytes = 0
            storage.latest = [:]
            defer { storage.roomWaiters = [:] }
            return storage.roomWaiters.values
        }
        wake.finish()
        for waiter in waiters { waiter.resume(returning: false) }
    }

    /// Waits until fewer than `maxQueuedReplies` replies (and `maxQueuedReplyBytes` bytes) are
    /// queued. Returns false, at once, when the client is gone or the task is cancelled.
    public func waitForRoom() async -> Bool {
        let id = storage.withLock { storage in
            defer { storage.nextWaiter += 1 }
            return storage.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let ready = storage.withLock { storage -> Bool? in
                    if storage.phase == .closed || Task.isCancelled { return false }
                    if storage.hasRoom || storage.phase == .finished { return true }
                    storage.roomWaiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = storage.withLock { $0.roomWaiters.removeValue(forKey: id) }
            waiter?.resume(returning: false)
        }
    }

    /// The next line to write: replies first, then notifications in the order they were offered.
    func next() -> String? {
        let (line, waiters) = storage.withLock { storage -> (String?, [CheckedContinuation<Bool, Never>]) in
            if !storage.replies.isEmpty {
                let line = storage.replies.removeFirst()
                storage.replyBytes -= line.utf8.count
                guard storage.hasRoom, !storage.roomWaiters.isEmpty else { return (line, []) }
                defer { storage.roomWaiters = [:] }
                return (line, Array(storage.roomWaiters.values))
            }
            guard let (topic, entry) = storage.latest.min(by: { $0.value.order < $1.value.order }) else { return (nil, []) }
            storage.latest[topic] = nil
            return (entry.line, [])
        }
        for waiter in waiters { waiter.resume(returning: true) }
        return line
    }

    /// Writes every queued line with `write` as it comes, until `finish` and the queue is empty,
    /// or until `close`. A throwing `write` (the client went away) ends the drain.
    public func drain(_ write: (String) async throws -> Void) async throws {
        for await _ in wakeups {
            while let line = next() { try await write(line) }
        }
        while let line = next() { try await write(line) }
    }
}
