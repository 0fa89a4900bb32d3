import Synchronization

/// Fans the engine's changes out to watching clients: each change is encoded once, and each
/// watcher's outbox keeps only the newest per topic.
///
/// A change is encoded only when someone watches its topic: otherwise the latest value is kept as it
/// is and encoded (once) when a watcher asks for it with `replay`. The line is the same either way.
public final class NotificationHub: ChangePublisher {
    private struct Subscriber {
        var outbox: Outbox
        var topics: Set<Outbox.Topic>
    }

    /// The latest change of a topic: its notification line, or the value to encode it from on demand.
    private enum Latest {
        case none
        case line(String)
        case state(DaemonState)
        case overlays(Overlays)

        /// The notification line, encoding it (once: `self` keeps the line) if not done yet.
        mutating func line() -> String? {
            switch self {
            case .none: return nil
            case .line(let line): return line
            case .state(let state):
                let line = NotificationHub.line(state: state)
                self = .line(line)
                return line
            case .overlays(let overlays):
                let line = NotificationHub.line(overlays: overlays)
                self = .line(line)
                return line
            }
        }
    }

    private struct Storage {
        var latestState = Latest.none
        var latestOverlays = Latest.none
        var subscribers: [ObjectIdentifier: Subscriber] = [:]

        subscript(topic: Outbox.Topic) -> Latest {
            get { topic == .state ? latestState : latestOverlays }
            set {
                switch topic {
                case .state: latestState = newValue
                case .overlays: latestOverlays = newValue
                }
            }
        }
    }

    private let storage = Mutex(Storage())

    public init() {}

    private static func line(state: DaemonState) -> String {
        RPCMessage.notification(method: "state", params: state.json)
    }

    private static func line(overlays: Overlays) -> String {
        RPCMessage.notification(method: "overlays", params: overlays.json)
    }

    public func publish(state: DaemonState) {
        deliver(.state, .state(state))
    }

    public func publish(overlays: Overlays) {
        deliver(.overlays, .overlays(overlays))
    }

    private func deliver(_ topic: Outbox.Topic, _ latest: Latest) {
        storage.withLock { storage in
            storage[topic] = latest
            let watchers = storage.subscribers.values.filter { $0.topics.contains(topic) }
            guard !watchers.isEmpty, let line = storage[topic].line() else { return }
            for subscriber in watchers {
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
            if topics.contains(.state), let line = storage.latestState.line() { outbox.offer(.state, line: line) }
            if topics.contains(.overlays), let line = storage.latestOverlays.line() { outbox.offer(.overlays, line: line) }
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
