import Synchronization
import WeatherCore

/// Fans the engine's changes out to watching clients: each change is encoded once, and each
/// watcher's outbox keeps only the newest per topic.
///
/// A change is encoded only when someone watches its topic: otherwise the latest value is kept as it
/// is and encoded (once) when a watcher asks for it with `replay`. The line is the same either way.
/// Overlays are encoded by the first watcher's writer that takes them out (`OverlaysEdition`).
public final class NotificationHub: ChangePublisher {
    private struct Subscriber {
        var outbox: Outbox
        var topics: Set<Outbox.Topic>
    }

    /// The latest state: its notification line, or the value to encode it from on demand.
    private enum Latest {
        case none
        case line(String)
        case state(DaemonState)

        /// The notification line, encoding it (once: `self` keeps the line) if not done yet.
        mutating func line() -> String? {
            switch self {
            case .none: return nil
            case .line(let line): return line
            case .state(let state):
                let line = NotificationHub.line(state: state)
                self = .line(line)
                return line
            }
        }
    }

    private struct Storage {
        var latestState = Latest.none
        /// The latest overlays; its lines are encoded when a watcher's writer first needs them.
        var latestOverlays: OverlaysEdition?
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
    }

    private let storage = Mutex(Storage())
    /// The texts of the features written lately, for replies and notifications alike.
    let featureTexts = FeatureTexts()

    public init() {}

    private static func line(state: DaemonState) -> String {
        RPCMessage.notification(method: "state", params: state.json)
    }

    // Notifications are queued under the lock, in the order they were published, and each
    // watcher's writer is woken after it: a writer may write at once, on this thread (the Unix
    // socket's, on its event loop), and nobody else should wait on the hub meanwhile.

    public func publish(state: DaemonState) {
        let queued = storage.withLock { storage -> [Outbox] in
            storage.latestState = .state(state)
            let watchers = storage.subscribers.values.filter { $0.topics.contains(.state) }
            guard !watchers.isEmpty, let line = storage.latestState.line() else { return [] }
            return watchers.compactMap { $0.outbox.offerQuietly(.state, line: line) ? $0.outbox : nil }
        }
        for outbox in queued { outbox.wakeWriter() }
    }

    /// Each watcher's writer makes the line when it takes the change out (the full collection, or
    /// for a diff watcher the diff from the last collection it got), encoded once for all watchers.
    public func publish(overlays: Overlays) {
        let queued = storage.withLock { storage -> [Outbox] in
            let edition = OverlaysEdition(overlays, after: storage.latestOverlays, texts: featureTexts)
            storage.latestOverlays = edition
            return storage.subscribers.values.compactMap { subscriber in
                subscriber.topics.contains(.overlays) && subscriber.outbox.offerQuietly(overlays: edition) ? subscriber.outbox : nil
            }
        }
        for outbox in queued { outbox.wakeWriter() }
    }

    /// Subscribes `outbox` to `topics`, replacing an earlier subscription. With `replay`, the
    /// current state and overlays are queued at once; nothing published in between is lost. With
    /// `diff`, overlays changes after the first full collection go out as `overlays.diff`.
    public func watch(_ outbox: Outbox, topics: Set<Outbox.Topic>, replay: Bool, diff: Bool = false) {
        let queued = storage.withLock { storage -> Bool in
            guard !outbox.isClosed else { return false }  // its client is gone
            outbox.dropNotifications()
            outbox.resetOverlays(diff: diff)
            storage.subscribers[ObjectIdentifier(outbox)] = Subscriber(outbox: outbox, topics: topics)
            guard replay else { return false }
            var queued = false
            if topics.contains(.state), let line = storage.latestState.line() { queued = outbox.offerQuietly(.state, line: line) }
            if topics.contains(.overlays), let edition = storage.latestOverlays {
                queued = outbox.offerQuietly(overlays: edition) || queued
            }
            return queued
        }
        if queued { outbox.wakeWriter() }
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
