import Synchronization
import WeatherCore

/// What the daemon has to send to one client: replies in order, and the latest notification of
/// each topic. A client that does not read gets the latest state and overlays when it reads again,
/// never a backlog, so its memory stays bounded.
///
/// The decisions are ``OutboxState``'s; this class holds it under a lock and does what it returns
/// (signal the writer, resume readers) after letting go. One writer takes the lines out: it is
/// signalled (`write(whenReady:)`, `write(whenSignalled:)`) whenever there is something to take (`take()`).
///
/// An outbox lives as long as its `ClientSession`; `close()` (the client went away) drops
/// everything queued at once and ends every wait on it.
public final class Outbox: Sendable {
    /// A notification topic a client can watch.
    public enum Topic: String, Sendable, Hashable, CaseIterable {
        case overlays, state
    }

    /// Once this many replies wait to be written, the client's requests are no longer read
    /// (`waitForRoom`) until it reads.
    public static let maxQueuedReplies = 64
    /// Likewise once the replies waiting add up to this many bytes (a few large batch replies).
    public static let maxQueuedReplyBytes = 1 << 20

    /// The writer's signal. A struct, not the bare closure: a closure stored in a `Mutex` is
    /// re-wrapped in a reabstraction thunk at every `withLock`, a chain that grows by two calls
    /// for every line written (measured: 16% of the daemon's time after 10,000 requests).
    struct Writer: Sendable {
        let signal: @Sendable (WriteSignal) -> Void

        /// Replies (or the end) wait: the writer may write them at once, on the caller's thread.
        func ready() { signal(.lines) }
        /// Notifications wait, handed over by the hub: the writer writes them later, on its own thread.
        func notify() { signal(.notifications) }
    }

    /// Why a writer is signalled.
    public enum WriteSignal: Sendable {
        /// A reply or the end: the caller is the session, which waits for nothing but may be on the
        /// writer's own thread (the connection's event loop): the writer may write at once.
        case lines
        /// A notification from the hub: the caller publishes a change (the engine, in its turn) to
        /// every watcher, so the writer writes it after that turn, on its own thread.
        case notifications
    }

    private let state = Mutex(
        OutboxState<CheckedContinuation<Bool, Never>, Writer>(
            maxReplies: Outbox.maxQueuedReplies, maxReplyBytes: Outbox.maxQueuedReplyBytes))
    /// Woken once everything queued before `finish` is written (`confirmWritten`), or at `close`.
    private let written = Wakeup()
    /// The id of the next wait for room (outside the lock: a wait takes it once).
    private let nextWait = Atomic<UInt64>(0)

    /// What hands this client the hub's changes along with others' (its transport's), if anything:
    /// set by the session before the client can watch.
    private let routeBox = Mutex<(any NotificationRoute)?>(nil)

    public init() {}

    /// The outbox's ``NotificationRoute``, as the transport gave it (`ClientSession.run`).
    var route: (any NotificationRoute)? {
        get { routeBox.withLock { $0 } }
        set { routeBox.withLock { $0 = newValue } }
    }

    /// Makes `ready` the writer's signal: it is called, from any thread, whenever lines wait to be
    /// taken with `take()` or the outbox has finished; at once if there are any now. The writer
    /// takes them on one thread at a time.
    public func write(whenReady ready: @escaping @Sendable () -> Void) {
        write(whenSignalled: { _ in ready() })
    }

    /// Makes `signal` the writer's signal, as `write(whenReady:)`, telling replies (`.lines`) from
    /// the hub's notifications (`.notifications`).
    public func write(whenSignalled signal: @escaping @Sendable (WriteSignal) -> Void) {
        state.withLock { $0.setWriter(Writer(signal: signal)) }.ready()
    }

    /// Queues a reply line (without its newline). Dropped when the client is gone.
    public func send(reply line: String) {
        state.withLock { $0.send(reply: line) }?.ready()
    }

    /// Queues a reply line (if any) after `change`, a change of the client's subscription (its
    /// `watch` or `unwatch`), holding notifications back meanwhile: the reply goes out before any
    /// notification the change brings (a `watch`'s replay), none of the old subscription comes
    /// after it, and a change made once the client has the reply reaches it.
    func send(reply line: String?, after change: () -> Void) {
        state.withLock { $0.hold() }
        change()
        state.withLock { $0.release(reply: line) }?.ready()
    }

    /// Offers the `version`th notification of `topic` the hub published: it replaces the one
    /// waiting, unless the client does not watch, sends no more, or has a newer one already.
    /// - Returns: the writer to signal, when it was taken in (the hub signals the writers of all
    ///   its watchers once it has offered the change to every one).
    func offer(_ topic: Topic, _ notice: Notice, version: Int) -> Writer? {
        state.withLock { $0.offer(topic, notice, version: version) }
    }

    /// The writer to signal when lines wait to be taken, else nil.
    func writerIfWaiting() -> Writer? {
        state.withLock { $0.writerIfWaiting }
    }

    /// A new subscription (`watch`): see ``OutboxState/watch(diff:)``.
    func watch(diff: Bool) {
        state.withLock { $0.watch(diff: diff) }
    }

    /// The subscription ended (`unwatch`): notifications not yet sent are dropped.
    func unwatch() {
        state.withLock { $0.unwatch() }
    }

    /// Whether a request may be answered now without waiting (``waitForRoom()``): the client is
    /// there, more replies may be queued, and there is room for them.
    public var takesRequests: Bool { state.withLock { $0.takesRequests } }

    /// True once the client is gone (`close`).
    public var isClosed: Bool { state.withLock { $0.phase == .closed } }

    /// No more lines will be queued; the writer takes `.finished` once everything queued is taken.
    public func finish() {
        state.withLock { $0.finish() }?.ready()
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

    /// The client is gone: everything queued is dropped, and every wait on the outbox ends.
    public func close() {
        let closing = state.withLock { $0.close() }
        written.wake()
        closing.writer?.ready()
        for waiter in closing.waiters { waiter.resume(returning: false) }
    }

    /// Waits until fewer than `maxQueuedReplies` replies (and `maxQueuedReplyBytes` bytes) are
    /// queued. Returns false, at once, when the client is gone or the task is cancelled.
    public func waitForRoom() async -> Bool {
        let id = nextWait.add(1, ordering: .relaxed).oldValue
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let action = state.withLock { $0.waitForRoom(continuation, id: id, cancelled: Task.isCancelled) }
                if case .resume(let ready) = action { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { $0.cancelWait(id) }?.resume(returning: false)
        }
    }

    /// What the writer takes out of the outbox.
    public enum Next: Sendable {
        /// A line to write (without its newline).
        case line(String)
        /// Nothing now; the writer is signalled (`write(whenReady:)`) when there is.
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
        takeWithMore().next
    }

    /// ``take()``, and whether another `take()` now would give more than `.none`: when not, a
    /// writer that took a line need not ask again to learn that nothing is left (whatever is
    /// queued later signals it, as after `.none`).
    public func takeWithMore() -> (next: Next, more: Bool) {
        let (taken, resume, more) = state.withLock { state in
            let (taken, resume) = state.take()
            return (taken, resume, state.hasMore)
        }
        for waiter in resume { waiter.resume(returning: true) }
        switch taken {
        case .none: return (.none, more)
        case .finished: return (.finished, more)
        case .line(let line): return (.line(line), more)
        case .overlays(let edition, let diff, let base, let subscription):
            guard diff else { return (.line(edition.fullLine), more) }
            let line = edition.line(after: base?.overlays)
            state.withLock { $0.delivered(edition, subscription: subscription) }
            return (.line(line), more)
        }
    }
}
