import Synchronization

/// Fans the engine's changes out to watching clients: each change is encoded once, and each
/// watcher's outbox keeps only the newest per topic.
public final class NotificationHub: ChangePublisher {
    private struct Subscriber {
        var outbox: Outbox
        var topics: Set<Outbox.Topic>
    }

    private struct Storage {
        var latestState: String?
        var latestOverlays: String?
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
    }

    private let storage = Mutex(Storage())

    public init() {}

    public func publish(state: DaemonState) {
        deliver(.state, line: RPCMessage.notification(method: "state", params: state.json))
    }

    public func publish(overlays: Overlays) {
        deliver(.overlays, line: RPCMessage.notification(method: "overlays", params: overlays.json))
    }

    private func deliver(_ topic: Outbox.Topic, line: String) {
        storage.withLock { storage in
            switch topic {
            case .state: storage.latestState = line
            case .overlays: storage.latestOverlays = line
            }
            for subscriber in storage.subscribers.values where subscriber.topics.contains(topic) {
                subscriber.outbox.offer(topic, line: line)
            }
        }
    }

    /// Subscribes `outbox` to `topics`, replacing an earlier subscription. With `replay`, the
    /// current state and overlays are queued at once; nothing published in between is lost.
    public func watch(_ outbox: Outbox, topics: Set<Outbox.Topic>, replay: Bool) {
        storage.withLock { storage in
            guard !outbox.isClosed else { return }  // its client is gone
            outbox.dropNotifications()
            storage.subscribers[ObjectIdentifier(outbox)] = Subscriber(outbox: outbox, topics: topics)
            guard replay else { return }
            if topics.contains(.state), let line = storage.latestState { outbox.offer(.state, line: line) }
            if topics.contains(.overlays), let line = storage.latestOverlays { outbox.offer(.overlays, line: line) }
        }
    }

    /// Ends `outbox`'s subscription and drops what it had not sent yet.
    public func unwatch(_ outbox: Outbox) {
        storage.withLock { storage in
            storage.subscribers[ObjectIdentifier(outbox)] = nil
            outbox.dropNotifications()
        }
    }

    /// Clients watching now.
    public var watcherCount: Int { storage.withLock { $0.subscribers.count } }
}
