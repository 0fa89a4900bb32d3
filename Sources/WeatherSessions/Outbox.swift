import Synchronization
import WeatherCore

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

    /// A notification waiting to be written.
    private enum Notice {
        case line(String)
        /// An overlays collection: its line (full, or for a diff watcher a diff from the last
        /// collection written) is made when the writer takes it out.
        case overlays(OverlaysEdition)
    }

    private struct Storage {
        var replies: [String] = []
        var replyBytes = 0
        /// The newest unsent notification of each topic, with the order it was offered in.
        var latest: [Topic: (order: Int, notice: Notice)] = [:]
        var order = 0
        /// Overlays changes go out as diffs (`watch` with `diff: true`).
        var diffOverlays = false
        /// The last overlays collection written to a diff watcher since its `watch`: the base of
        /// its next diff.
        var delivered: OverlaysEdition?
        /// Bumped by each `watch`, so a collection taken out before it is not the base after it.
        var subscription = 0
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
    /// Told whenever there is something for the writer to take (`take`): lines, or the end.
    private let ready = Mutex<Ready?>(nil)
    /// Woken once everything queued before `finish` is written (`confirmWritten`), or at `close`.
    private let written = Wakeup()

    public init() {}

    /// The writer's signal. A struct, not the bare closure: a closure stored in a `Mutex` is
    /// re-wrapped in a reabstraction thunk at every `withLock`, a chain that grows by two calls
    /// for every line written (measured: 16% of the daemon's time after 10,000 requests).
    private struct Ready: Sendable {
        let call: @Sendable () -> Void
    }

    /// Tells the writer there is something to take.
    private func wake() {
        ready.withLock { $0 }?.call()
    }

    /// Makes `ready` the writer's signal: it is called, from any thread, whenever lines wait to be
    /// taken with `take()` or the outbox has finished; at once if there are any now. The writer
    /// takes them on one thread at a time. (A transport that writes from its event loop instead
    /// of from a task of its own; `drain` is the other writer.)
    public func write(whenReady ready: @escaping @Sendable () -> Void) {
        self.ready.withLock { $0 = Ready(call: ready) }
        if isClosed { self.ready.withLock { $0 = nil } }
        ready()
    }

    /// Queues a reply line (without its newline). Dropped when the client is gone.
    public func send(reply line: String) {
        let queued = storage.withLock { storage in
            guard storage.phase != .closed else { return false }
            storage.replies.append(line)
            storage.replyBytes += line.utf8.count
            return true
        }
        if queued { wake() }
    }

    /// Replaces the pending notification of `topic` with `line`, without telling the writer: the
    /// caller (the hub, which holds its lock) calls `wakeWriter()` once it has let go, since the
    /// writer may write at once, on this thread. Dropped when the client is gone or sends no more
    /// (`finish`).
    /// - Returns: whether it was queued (then the writer must be woken).
    func offerQuietly(_ topic: Topic, line: String) -> Bool {
        queue(topic, .line(line))
    }

    /// Replaces the pending overlays notification with `edition`, as `offerQuietly(_:line:)`: a
    /// full `overlays` line, or for a diff watcher an `overlays.diff` from the last collection
    /// written, made when it is written.
    func offerQuietly(overlays edition: OverlaysEdition) -> Bool {
        queue(.overlays, .overlays(edition))
    }

    /// Tells the writer there is something to take (after `offerQuietly`).
    func wakeWriter() {
        wake()
    }

    private func queue(_ topic: Topic, _ notice: Notice) -> Bool {
        storage.withLock { storage in
            guard storage.phase == .open else { return false }
            storage.order += 1
            storage.latest[topic] = (storage.order, notice)
            return true
        }
    }

    /// A new subscription (`watch`): overlays changes go out as diffs when `diffOverlays`, and the
    /// first overlays notification after it is the full collection either way.
    public func resetOverlays(diff diffOverlays: Bool) {
        storage.withLock { storage in
            storage.diffOverlays = diffOverlays
            storage.delivered = nil
            storage.subscription += 1
        }
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
        wake()
    }

    /// The writer has written everything taken after `take` returned `.finished`.
    public func confirmWritten() {
        written.wake()
    }

    /// Waits until everything queued before `finish` is written (true), the client is gone (true),
    /// or the task is cancelled (false).
    public func allWritten() async -> Bool {
        await written.wait()
    }

    /// The client is gone: everything queued is dropped, `drain` and every `waitForRoom` end.
    public func close() {
        let waiters = storage.withLock { storage in
            storage.phase = .closed
            storage.replies = []
            storage.replyBytes = 0
            storage.latest = [:]
            storage.delivered = nil
            defer { storage.roomWaiters = [:] }
            return storage.roomWaiters.values
        }
        written.wake()
        wake()
        ready.withLock { $0 = nil }  // the writer may hold the outbox: no cycle once the client is gone
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

    /// What the writer takes out next.
    private enum Taken {
        case line(String)
        /// Nothing more, ever.
        case finished
        /// An overlays collection to write in full, or as a diff from `base` (a diff watcher).
        case overlays(OverlaysEdition, diff: Bool, base: OverlaysEdition?, subscription: Int)
    }

    /// What the writer takes out of the outbox.
    public enum Next: Sendable {
        /// A line to write (without its newline).
        case line(String)
        /// Nothing now; the writer is told (`write(whenReady:)`) when there is.
        case none
        /// Nothing more, ever: everything was taken after `finish` (or the client is gone); no
        /// notification is queued after `finish`, and no reply (the session has none left then).
        /// Once what was taken is written, the writer calls `confirmWritten()` (more calls do no harm).
        case finished
    }

    /// The next line to write: replies first, then notifications in the order they were offered.
    /// An overlays line is made here, outside the lock, from the last collection this client got.
    /// Only the writer calls it, from one thread at a time.
    public func take() -> Next {
        let (taken, waiters) = storage.withLock { storage -> (Taken?, [CheckedContinuation<Bool, Never>]) in
            if !storage.replies.isEmpty {
                let line = storage.replies.removeFirst()
                storage.replyBytes -= line.utf8.count
                guard storage.hasRoom, !storage.roomWaiters.isEmpty else { return (.line(line), []) }
                defer { storage.roomWaiters = [:] }
                return (.line(line), Array(storage.roomWaiters.values))
            }
            guard let (topic, entry) = storage.latest.min(by: { $0.value.order < $1.value.order }) else {
                return (storage.phase == .open ? nil : .finished, [])
            }
            storage.latest[topic] = nil
            switch entry.notice {
            case .line(let line):
                return (.line(line), [])
            case .overlays(let edition):
                return (.overlays(edition, diff: storage.diffOverlays, base: storage.delivered, subscription: storage.subscription), [])
            }
        }
        for waiter in waiters { waiter.resume(returning: true) }
        switch taken {
        case nil:
            return .none
        case .finished?:
            return .finished
        case .line(let line)?:
            return .line(line)
        case .overlays(let edition, let diff, let base, let subscription)?:
            guard diff else { return .line(edition.fullLine) }
            let line = edition.line(after: base?.overlays)
            storage.withLock { storage in
                if storage.subscription == subscription, storage.phase != .closed { storage.delivered = edition }
            }
            return .line(line)
        }
    }

    /// Writes every queued line with `write` as it comes, until `finish` and the queue is empty,
    /// until `close`, or until the task is cancelled. A throwing `write` (the client went away)
    /// ends the drain.
    public func drain(_ write: (String) async throws -> Void) async throws {
        let wakeup = Wakeup()
        self.write(whenReady: wakeup.wake)
        while await wakeup.wait() {
            taking: while true {
                switch take() {
                case .line(let line): try await write(line)
                case .none: break taking
                case .finished:
                    confirmWritten()
                    return
                }
            }
        }
    }
}
