import WeatherCore

/// A notification for a watcher, as the hub publishes it.
enum Notice: Sendable {
    case line(String)
    /// An overlays collection: its line (full, or for a diff watcher a diff from the last
    /// collection written) is made when the writer takes it out.
    case overlays(OverlaysEdition)
}

/// The decisions of an ``Outbox``, apart from its lock, its writer and its waiting readers: a plain
/// state machine. Each event returns what to do; the outbox does it after letting go of its lock.
/// `Waiter` is a suspended reader's continuation in the daemon, any token in the tests; `Writer` is
/// the writer's signal (called when there is something to take).
///
/// What it keeps for one client: replies in order, and the latest notification of each topic. A
/// client that does not read gets the latest state and overlays when it reads again, never a
/// backlog; once `maxReplies` replies (or `maxReplyBytes` bytes of them) wait, the reader waits
/// for room.
struct OutboxState<Waiter, Writer> {
    enum Phase: Equatable {
        /// Lines may still be queued.
        case open
        /// No more lines will be queued; what is queued is still written.
        case finished
        /// The client is gone: nothing is kept, nothing is written.
        case closed
    }

    /// What the writer takes out next.
    enum Taken {
        case line(String)
        /// Nothing now; the writer is signalled when there is.
        case none
        /// Nothing more, ever.
        case finished
        /// An overlays collection to write in full, or as a diff from `base` (a diff watcher).
        /// Once it is made, ``delivered(_:subscription:)`` makes it the base of the next diff.
        case overlays(OverlaysEdition, diff: Bool, base: OverlaysEdition?, subscription: Int)
    }

    private let maxReplies: Int
    private let maxReplyBytes: Int

    private(set) var phase = Phase.open
    private var replies: [String] = []
    private var replyBytes = 0
    /// The newest unsent notification of each topic, with the order it was offered in.
    /// (Two fields, not a dictionary: a watcher would keep a dictionary's storage for as long as it
    /// stays connected.)
    private var latest = PerTopic<(order: Int, notice: Notice)?>(nil)
    private var order = 0
    /// The version of the newest notification offered for each topic since the last `watch`: an
    /// older one offered later (a publish and a replay crossing) is no news.
    private var newest = PerTopic(0)
    /// The client watches (between `watch` and `unwatch`): notifications are taken in.
    private var watching = false
    /// Subscriptions changing now (`hold`, not yet `release`d): notifications are taken in but not
    /// taken out, so that the reply of the request that changed them goes first.
    private var holds = 0
    /// Overlays changes go out as diffs (`watch` with `diff: true`).
    private var diffOverlays = false
    /// The last overlays collection written to a diff watcher since its `watch`: the base of its next diff.
    private var delivered: OverlaysEdition?
    /// Bumped by each `watch`, so a collection taken out before it is not the base after it.
    private var subscription = 0
    private var roomWaiters: [UInt64: Waiter] = [:]
    private var writer: Writer?

    init(maxReplies: Int, maxReplyBytes: Int) {
        self.maxReplies = maxReplies
        self.maxReplyBytes = maxReplyBytes
    }

    private var hasRoom: Bool { replies.count < maxReplies && replyBytes < maxReplyBytes }

    /// Whether a request may be answered now without waiting for room: open, with room.
    var takesRequests: Bool { phase == .open && hasRoom }

    /// How many replies wait to be written.
    var queuedReplies: Int { replies.count }

    /// Whether a ``take()`` now would give more than `.none`: a reply, a notification that may be
    /// taken out, or (no longer open) the end. When not, the writer need not ask: whatever is
    /// queued later signals it.
    var hasMore: Bool { phase != .open || !replies.isEmpty || (holds == 0 && oldestWaiting != nil) }

    /// The writer, when something waits that it would take now.
    var writerIfWaiting: Writer? {
        guard phase != .closed, !replies.isEmpty || (holds == 0 && oldestWaiting != nil) else { return nil }
        return writer
    }

    // MARK: Events

    /// The writer's signal is `writer` from now on (unless the client is gone: it is not kept).
    /// Returns it to call once at once: there may be lines already, or the end.
    mutating func setWriter(_ writer: Writer) -> Writer {
        if phase != .closed { self.writer = writer }
        return writer
    }

    /// A reply: the writer to signal, or nil when the client is gone.
    mutating func send(reply line: String) -> Writer? {
        guard phase != .closed else { return nil }
        replies.append(line)
        replyBytes += line.utf8.count
        return writer
    }

    /// A notification of `topic`, the `version`th the hub published: it replaces the one waiting.
    /// The writer to signal, or nil when it is not taken in: the client does not watch, sends no
    /// more, is gone, or already has a newer one.
    mutating func offer(_ topic: Outbox.Topic, _ notice: Notice, version: Int) -> Writer? {
        guard phase == .open, watching else { return nil }
        guard newest[topic] < version else { return nil }
        newest[topic] = version
        order += 1
        latest[topic] = (order, notice)
        return writer
    }

    /// A new subscription (`watch`): notifications are taken in, what waits of the last one is
    /// dropped, overlays changes go out as diffs when `diff`, and the first overlays notification
    /// after it is the full collection either way.
    mutating func watch(diff: Bool) {
        watching = true
        latest = PerTopic(nil)
        newest = PerTopic(0)
        diffOverlays = diff
        delivered = nil
        subscription += 1
    }

    /// The subscription ends (`unwatch`): what waits is dropped, nothing more is taken in.
    mutating func unwatch() {
        watching = false
        latest = PerTopic(nil)
    }

    /// A request changes the subscription: until its reply is queued (`release`), notifications
    /// are held back. Its reply then goes out before them, and any change made after the client
    /// read that reply reaches it.
    mutating func hold() {
        holds += 1
    }

    /// The reply of a request that changed the subscription is queued (or it has none): the writer
    /// to signal, unless the client is gone or the subscription of another such request still holds.
    mutating func release(reply line: String?) -> Writer? {
        holds -= 1
        if let line { return send(reply: line) }
        return holds == 0 && phase != .closed ? writer : nil
    }

    /// No more lines will be queued: the writer to signal (it takes what is queued, then `.finished`).
    mutating func finish() -> Writer? {
        if phase == .open { phase = .finished }
        return writer
    }

    /// What `close` leaves to do: end each reader's wait with false, and signal the writer (it
    /// then takes `.finished`).
    struct Closing {
        var waiters: [Waiter]
        var writer: Writer?
    }

    /// The client is gone: everything queued is dropped, every wait for room ends, and the writer
    /// is let go (it may hold the outbox: no cycle once the client is gone).
    mutating func close() -> Closing {
        let closing = Closing(waiters: Array(roomWaiters.values), writer: phase == .closed ? nil : writer)
        phase = .closed
        replies = []
        replyBytes = 0
        latest = PerTopic(nil)
        delivered = nil
        roomWaiters = [:]
        writer = nil
        return closing
    }

    enum RoomAction {
        /// The wait ends at once: true when there is room (or nothing more will be queued), false
        /// when the client is gone or the task is cancelled.
        case resume(Bool)
        /// The reader waits for room, its hang-up or its cancellation.
        case suspend
    }

    /// The reader waits for room (`cancelled`: its task already is); `id` tells its wait from another.
    mutating func waitForRoom(_ waiter: Waiter, id: UInt64, cancelled: Bool) -> RoomAction {
        if phase == .closed || cancelled { return .resume(false) }
        if hasRoom || phase == .finished { return .resume(true) }
        roomWaiters[id] = waiter
        return .suspend
    }

    /// The task of wait `id` was cancelled: its waiter to resume with false, if it still waits.
    mutating func cancelWait(_ id: UInt64) -> Waiter? {
        roomWaiters.removeValue(forKey: id)
    }

    /// The writer takes the next line: replies first, then notifications in the order they were
    /// offered. `resume` are the readers to wake with true (there is room again).
    mutating func take() -> (taken: Taken, resume: [Waiter]) {
        if !replies.isEmpty {
            let line = replies.removeFirst()
            // An idle client (a watcher) keeps no storage for its replies.
            if replies.isEmpty { replies = [] }
            replyBytes -= line.utf8.count
            guard hasRoom, !roomWaiters.isEmpty else { return (.line(line), []) }
            defer { roomWaiters = [:] }
            return (.line(line), Array(roomWaiters.values))
        }
        guard holds == 0 else { return (.none, []) }
        guard let (topic, entry) = oldestWaiting else {
            return (phase == .open ? .none : .finished, [])
        }
        latest[topic] = nil
        switch entry.notice {
        case .line(let line):
            return (.line(line), [])
        case .overlays(let edition):
            return (.overlays(edition, diff: diffOverlays, base: delivered, subscription: subscription), [])
        }
    }

    /// The notification offered first of those waiting, and its topic.
    private var oldestWaiting: (Outbox.Topic, (order: Int, notice: Notice))? {
        switch (latest[.state], latest[.overlays]) {
        case (nil, nil): nil
        case (let state?, nil): (.state, state)
        case (nil, let overlays?): (.overlays, overlays)
        case (let state?, let overlays?): state.order < overlays.order ? (.state, state) : (.overlays, overlays)
        }
    }

    /// The writer made the line of `edition`, taken out during `subscription`: the base of the next
    /// diff, unless a `watch` came since.
    mutating func delivered(_ edition: OverlaysEdition, subscription: Int) {
        if self.subscription == subscription, phase != .closed { delivered = edition }
    }
}

/// One value per topic (the newest version offered, the notification waiting): two fields, not a
/// dictionary, since every publish sets one for each watcher and a dictionary's storage would stay
/// with each watcher.
struct PerTopic<Value> {
    private var state: Value
    private var overlays: Value

    init(_ value: Value) {
        state = value
        overlays = value
    }

    subscript(topic: Outbox.Topic) -> Value {
        get {
            switch topic {
            case .state: state
            case .overlays: overlays
            }
        }
        set {
            switch topic {
            case .state: state = newValue
            case .overlays: overlays = newValue
            }
        }
        // In place: a list of watchers grows without being copied.
        _modify {
            switch topic {
            case .state: yield &state
            case .overlays: yield &overlays
            }
        }
    }
}
