import Synchronization
import WeatherCore

/// Fans the engine's changes out to watching clients: each change is encoded once, and each
/// watcher's outbox keeps only the newest per topic.
///
/// A change is encoded only when someone watches its topic: otherwise the latest value is kept as it
/// is and encoded (once) when a watcher asks for it with `replay`. The line is the same either way.
/// Overlays are encoded by the first watcher's writer that takes them out (`OverlaysEdition`).
/// The decisions are ``HubState``'s; notifications are handed to the outboxes after the lock.
public final class NotificationHub: ChangePublisher {
    private let state = Mutex(HubState<Outbox, any NotificationRoute>())
    /// The texts of the features written lately, for replies and notifications alike.
    let featureTexts = FeatureTexts()
    /// The text of the state a `state` request was answered with last.
    let stateTexts = LatestText<DaemonState> { $0.json.serialized }

    public init() {}

    public func publish(state: DaemonState) {
        deliver(self.state.withLock { $0.publish(state: state) })
    }

    /// Each watcher's writer makes the line when it takes the change out (the full collection, or
    /// for a diff watcher the diff from the last collection it got), encoded once for all watchers.
    public func publish(overlays: Overlays) {
        deliver(state.withLock { $0.publish(overlays: overlays, texts: featureTexts) })
    }

    /// The JSON text of `overlays` (an `overlays` request's result): the latest published
    /// collection's, made once for all who ask, when it is that one; otherwise made now from the
    /// features' kept texts.
    func text(of overlays: Overlays) -> String {
        if let latest = state.withLock({ $0.latestEdition }), latest.overlays == overlays { return latest.collectionText }
        return OverlaysEdition(overlays, texts: featureTexts).collectionText
    }

    /// Subscribes `outbox` to `topics`, replacing an earlier subscription. With `replay`, the
    /// current state and overlays are queued at once; nothing published in between is lost. With
    /// `diff`, overlays changes after the first full collection go out as `overlays.diff`.
    public func watch(_ outbox: Outbox, topics: Set<Outbox.Topic>, replay: Bool, diff: Bool = false) {
        guard !outbox.isClosed else { return }  // its client is gone
        outbox.watch(diff: diff)
        let route = outbox.route.map { (id: ObjectIdentifier($0), route: $0) }
        for delivery in state.withLock({ $0.watch(outbox, topics: topics, replay: replay, route: route) }) { deliver(delivery) }
        if outbox.isClosed { unwatch(outbox) }  // it went meanwhile, maybe before its `unwatch`
    }

    /// Ends `outbox`'s subscription and drops what it had not sent yet.
    public func unwatch(_ outbox: Outbox) {
        state.withLock { $0.unwatch(outbox) }
        outbox.unwatch()
    }

    /// Clients watching now.
    public var watcherCount: Int { state.withLock { $0.watcherCount } }

    /// Offers `delivery` to each of its watchers, then signals their writers (`notify`): each writes
    /// it later on its own thread, never inside the publisher's turn. A route's watchers (the Unix
    /// socket's, by event loop) are offered it by one job of that route, which writes each at once:
    /// the hub's part does not grow with them.
    private func deliver(_ delivery: HubState<Outbox, any NotificationRoute>.Delivery?) {
        guard let delivery else { return }
        for (route, outboxes) in delivery.routed {
            route.deliver(RoutedChange(topic: delivery.topic, notice: delivery.notice, version: delivery.version, outboxes: outboxes))
        }
        var writers: [Outbox.Writer] = []
        writers.reserveCapacity(delivery.subscribers.count)
        for outbox in delivery.subscribers {
            if let writer = outbox.offer(delivery.topic, delivery.notice, version: delivery.version) { writers.append(writer) }
        }
        for writer in writers { writer.notify() }
    }
}

/// What hands a group of watchers their notifications, on its own thread: the Unix socket's event
/// loops, each for its own connections. The hub gives it each change once for all of them.
public protocol NotificationRoute: AnyObject, Sendable {
    /// Hands `change` to its watchers later, on the route's thread, never inside the caller's turn:
    /// ``RoutedChange/offer(signal:)`` there.
    func deliver(_ change: RoutedChange)
}

/// One change for a route's watchers (``NotificationRoute``).
public struct RoutedChange: Sendable {
    let topic: Outbox.Topic
    let notice: Notice
    let version: Int
    let outboxes: [Outbox]

    /// Offers the change to each watcher's outbox, as the hub offers it to one; with `signal`, each
    /// that takes it in has its writer signalled as for a reply (`linesReady`: on the writer's own
    /// thread it writes at once). Without, call ``signalWriters()`` once every change of a batch is
    /// offered: each watcher then writes the newest of each topic once.
    public func offer(signal: Bool) {
        for outbox in outboxes {
            let writer = outbox.offer(topic, notice, version: version)
            if signal { writer?.ready() }
        }
    }

    /// Signals the writer of each outbox that has lines waiting (after ``offer(signal:)`` without).
    public func signalWriters() {
        for outbox in outboxes { outbox.writerIfWaiting()?.ready() }
    }
}
