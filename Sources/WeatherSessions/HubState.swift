import WeatherCore

/// The decisions of a ``NotificationHub``, apart from its lock and its outboxes: a plain state
/// machine. `Subscriber` is a watcher's outbox in the daemon, any object in the tests.
///
/// Each publish is numbered; a watcher's outbox keeps the newest of each topic by that number, so
/// the hub hands notifications over after letting go of its lock, and a publish and a `watch`'s
/// replay that cross leave the newer one waiting. (A `watch` without replay that crosses a publish
/// may still be handed that publish: a change made while it subscribed.)
struct HubState<Subscriber: AnyObject> {
    /// One notification for some watchers.
    struct Delivery {
        var topic: Outbox.Topic
        var notice: Notice
        var version: Int
        var subscribers: [Subscriber]
    }

    /// The latest state: its notification line, or the value to encode it from on demand.
    private enum Latest {
        case none
        case line(String, version: Int)
        case state(DaemonState, version: Int)
    }

    private var latestState = Latest.none
    /// The latest overlays; its lines are encoded when a watcher's writer first needs them.
    private var latestOverlays: (edition: OverlaysEdition, version: Int)?
    /// Each watcher with its topics (as bits: a set's storage would stay with each watcher).
    private var subscribers: [ObjectIdentifier: (subscriber: Subscriber, topics: PerTopic<Bool>)] = [:]
    private var version = 0

    /// Clients watching now.
    var watcherCount: Int { subscribers.count }

    /// A new state: to the watchers of `state`, encoded once (and only if someone watches).
    mutating func publish(state: DaemonState) -> Delivery? {
        version += 1
        latestState = .state(state, version: version)
        let watchers = watchers(of: .state)
        guard !watchers.isEmpty, let (line, version) = stateLine() else { return nil }
        return Delivery(topic: .state, notice: .line(line), version: version, subscribers: watchers)
    }

    /// New overlays: to the watchers of `overlays`. `texts` are the features written lately.
    mutating func publish(overlays: Overlays, texts: FeatureTexts?) -> Delivery? {
        version += 1
        let edition = OverlaysEdition(overlays, after: latestOverlays?.edition, texts: texts)
        latestOverlays = (edition, version)
        let watchers = watchers(of: .overlays)
        guard !watchers.isEmpty else { return nil }
        return Delivery(topic: .overlays, notice: .overlays(edition), version: version, subscribers: watchers)
    }

    /// `subscriber` watches `topics` from now on, replacing an earlier subscription; with `replay`,
    /// the current state and overlays go to it at once.
    mutating func watch(_ subscriber: Subscriber, topics: Set<Outbox.Topic>, replay: Bool) -> [Delivery] {
        var watched = PerTopic(false)
        for topic in topics { watched[topic] = true }
        subscribers[ObjectIdentifier(subscriber)] = (subscriber, watched)
        guard replay else { return [] }
        var deliveries: [Delivery] = []
        if topics.contains(.state), let (line, version) = stateLine() {
            deliveries.append(Delivery(topic: .state, notice: .line(line), version: version, subscribers: [subscriber]))
        }
        if topics.contains(.overlays), let (edition, version) = latestOverlays {
            deliveries.append(Delivery(topic: .overlays, notice: .overlays(edition), version: version, subscribers: [subscriber]))
        }
        return deliveries
    }

    mutating func unwatch(_ subscriber: Subscriber) {
        subscribers[ObjectIdentifier(subscriber)] = nil
    }

    private func watchers(of topic: Outbox.Topic) -> [Subscriber] {
        subscribers.values.compactMap { $0.topics[topic] ? $0.subscriber : nil }
    }

    /// The latest state's notification line, encoding it (once: the line is kept) if not done yet.
    private mutating func stateLine() -> (String, Int)? {
        switch latestState {
        case .none:
            return nil
        case .line(let line, let version):
            return (line, version)
        case .state(let state, let version):
            let line = RPCMessage.notification(method: "state", params: state.json)
            latestState = .line(line, version: version)
            return (line, version)
        }
    }
}
