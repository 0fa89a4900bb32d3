import WeatherCore

/// The decisions of a ``NotificationHub``, apart from its lock and its outboxes: a plain state
/// machine. `Subscriber` is a watcher's outbox in the daemon, any object in the tests; `Route` what
/// hands a group of watchers their notifications on its own thread (``NotificationRoute``: the
/// daemon's event loops, each for its connections).
///
/// Each publish is numbered; a watcher's outbox keeps the newest of each topic by that number, so
/// the hub hands notifications over after letting go of its lock, and a publish and a `watch`'s
/// replay that cross leave the newer one waiting. (A `watch` without replay that crosses a publish
/// may still be handed that publish: a change made while it subscribed.)
struct HubState<Subscriber: AnyObject, Route> {
    /// One notification for some watchers.
    struct Delivery {
        var topic: Outbox.Topic
        var notice: Notice
        var version: Int
        /// The watchers without a route: the hub hands it to each.
        var subscribers: [Subscriber]
        /// Each route with its watchers of the topic: the route hands it to them, on its own thread.
        var routed: [(route: Route, subscribers: [Subscriber])] = []
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
    /// The collection published last.
    var latestEdition: OverlaysEdition? { latestOverlays?.edition }
    /// Each watcher: its route, and its place in its route's list of each topic it watches (nil: it
    /// does not watch that topic; two fields, as a set's storage would stay with each watcher).
    private var subscribers: [ObjectIdentifier: Entry] = [:]
    /// The watchers without a route, by topic.
    private var unrouted = WatcherLists<Subscriber>()
    /// Each route with its watchers, by topic: a publish hands each route its lists as they are
    /// (an array shared, not a copy), so its cost does not grow with the watchers.
    private var routes: [ObjectIdentifier: (route: Route, lists: WatcherLists<Subscriber>)] = [:]
    private var version = 0

    private struct Entry {
        var route: ObjectIdentifier?
        var slot: PerTopic<Int?>
    }

    /// Clients watching now.
    var watcherCount: Int { subscribers.count }
    /// Routes with watchers now.
    var routeCount: Int { routes.count }

    /// A new state: to the watchers of `state`, encoded once (and only if someone watches).
    mutating func publish(state: DaemonState) -> Delivery? {
        version += 1
        latestState = .state(state, version: version)
        guard isWatched(.state), let (line, version) = stateLine() else { return nil }
        return delivery(.state, .line(line), version: version)
    }

    /// New overlays: to the watchers of `overlays`. `texts` are the features written lately.
    mutating func publish(overlays: Overlays, texts: FeatureTexts?) -> Delivery? {
        version += 1
        let edition = OverlaysEdition(overlays, after: latestOverlays?.edition, texts: texts)
        latestOverlays = (edition, version)
        guard isWatched(.overlays) else { return nil }
        return delivery(.overlays, .overlays(edition), version: version)
    }

    /// `subscriber` watches `topics` from now on, replacing an earlier subscription; with `replay`,
    /// the current state and overlays go to it at once (not through its route). `route` (with the
    /// identity that tells it from others): what hands it later changes, with every other watcher
    /// of that route; nil: the hub itself.
    mutating func watch(
        _ subscriber: Subscriber, topics: Set<Outbox.Topic>, replay: Bool, route: (id: ObjectIdentifier, route: Route)? = nil
    ) -> [Delivery] {
        let id = ObjectIdentifier(subscriber)
        remove(id)
        var entry = Entry(route: route?.id, slot: PerTopic(nil))
        if let route, routes[route.id] == nil { routes[route.id] = (route.route, WatcherLists()) }
        for topic in Outbox.Topic.allCases where topics.contains(topic) {
            entry.slot[topic] = modifyLists(of: route?.id) { $0.add(subscriber, topic) }
        }
        subscribers[id] = entry
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
        remove(ObjectIdentifier(subscriber))
    }

    /// Takes the subscription of `id` out of the lists (the last of a list moves into its place).
    private mutating func remove(_ id: ObjectIdentifier) {
        guard let entry = subscribers.removeValue(forKey: id) else { return }
        for topic in Outbox.Topic.allCases {
            guard let slot = entry.slot[topic] else { continue }
            if let moved = modifyLists(of: entry.route, { $0.remove(at: slot, topic) }) {
                subscribers[ObjectIdentifier(moved)]?.slot[topic] = slot
            }
        }
        if let route = entry.route, routes[route]?.lists.isEmpty == true { routes[route] = nil }
    }

    private mutating func modifyLists<T>(of route: ObjectIdentifier?, _ body: (inout WatcherLists<Subscriber>) -> T) -> T {
        guard let route else { return body(&unrouted) }
        return body(&routes[route]!.lists)
    }

    private func isWatched(_ topic: Outbox.Topic) -> Bool {
        !unrouted[topic].isEmpty || routes.values.contains { !$0.lists[topic].isEmpty }
    }

    private func delivery(_ topic: Outbox.Topic, _ notice: Notice, version: Int) -> Delivery {
        Delivery(
            topic: topic, notice: notice, version: version, subscribers: unrouted[topic],
            routed: routes.values.compactMap { $0.lists[topic].isEmpty ? nil : ($0.route, $0.lists[topic]) })
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

/// The watchers of each topic, in a list each: added at the end, removed by moving the last into
/// the gap, so both take the same time however many watch.
struct WatcherLists<Subscriber: AnyObject> {
    private var lists = PerTopic<[Subscriber]>([])

    var isEmpty: Bool { Outbox.Topic.allCases.allSatisfy { lists[$0].isEmpty } }

    subscript(topic: Outbox.Topic) -> [Subscriber] { lists[topic] }

    /// Adds `subscriber` to the list of `topic`: its slot there.
    mutating func add(_ subscriber: Subscriber, _ topic: Outbox.Topic) -> Int {
        lists[topic].append(subscriber)
        return lists[topic].count - 1
    }

    /// Removes the subscriber in `slot` of `topic`'s list: the one moved into that slot, if any.
    mutating func remove(at slot: Int, _ topic: Outbox.Topic) -> Subscriber? {
        let last = lists[topic].removeLast()
        guard slot < lists[topic].count else { return nil }
        lists[topic][slot] = last
        return last
    }
}
