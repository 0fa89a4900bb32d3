import Synchronization

/// What the daemon has to send to one client: replies in order, and the latest notification of
/// each topic. A client that does not read gets the latest state and overlays when it reads again,
/// never a backlog, so its memory stays bounded.
public final class Outbox: Sendable {
    /// A notification topic a client can watch.
    public enum Topic: String, Sendable, Hashable, CaseIterable {
        case overlays, state
    }

    private struct Storage {
        var replies: [String] = []
        /// The newest unsent notification line of each topic, with the order it was offered in.
        var latest: [Topic: (order: Int, line: String)] = [:]
        var order = 0
        var finished = false
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Replies queued beyond this make the reader wait (`waitForRoom`), which stops reading the socket.
    public static let maxQueuedReplies = 64

    private let storage = Mutex(Storage())
    private let wake: AsyncStream<Void>.Continuation
    private let wakeups: AsyncStream<Void>

    public init() {
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a reply line (without its newline).
    public func send(reply line: String) {
        storage.withLock { $0.replies.append(line) }
        wake.yield()
    }

    /// Replaces the pending notification of `topic` with `line`.
    public func offer(_ topic: Topic, line: String) {
        storage.withLock {
            $0.order += 1
            $0.latest[topic] = ($0.order, line)
        }
        wake.yield()
    }

    /// Drops notifications not yet sent (after `unwatch`).
    public func dropNotifications() {
        storage.withLock { $0.latest.removeAll() }
    }

    /// No more lines will be queued; `drain` returns once everything queued is written.
    public func finish() {
        storage.withLock { $0.finished = true }
        wake.finish()
    }

    /// Waits until fewer than `maxQueuedReplies` replies are queued.
    public func waitForRoom() async {
        await withCheckedContinuation { continuation in
            let ready = storage.withLock { storage in
                if storage.replies.count < Self.maxQueuedReplies || storage.finished { return true }
                storage.roomWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The next line to write: replies first, then notifications in the order they were offered.
    func next() -> String? {
        let (line, waiters) = storage.withLock { storage -> (String?, [CheckedContinuation<Void, Never>]) in
            if !storage.replies.isEmpty {
                let line = storage.replies.removeFirst()
                var waiters: [CheckedContinuation<Void, Never>] = []
                if storage.replies.count < Self.maxQueuedReplies { swap(&waiters, &storage.roomWaiters) }
                return (line, waiters)
            }
            guard let (topic, entry) = storage.latest.min(by: { $0.value.order < $1.value.order }) else { return (nil, []) }
            storage.latest[topic] = nil
            return (entry.line, [])
        }
        for waiter in waiters { waiter.resume() }
        return line
    }

    /// Writes every queued line with `write` as it comes, until `finish` and the queue is empty.
    /// A throwing `write` (the client went away) ends the drain.
    public func drain(_ write: (String) async throws -> Void) async throws {
        for await _ in wakeups {
            while let line = next() { try await write(line) }
        }
        while let line = next() { try await write(line) }
    }
}
