import Synchronization

/// What weatherd has to publish to the broker: the latest payload of each retained topic, never a
/// backlog. It is the engine's `ChangePublisher` for MQTT: a change only replaces the topic's
/// payload (encoded later, by the publisher, not in the engine) and wakes the publisher.
///
/// The publisher takes a topic's payload (`next`) only when none of that topic is in flight; a
/// newer payload set meanwhile waits for the acknowledgement, then goes out (the ones between are
/// never sent). A payload the client could not publish (too large for the broker, say) is not taken
/// again until it is replaced; the other topics go on. After the connection is lost every topic's
/// latest payload goes out again (a failed one is tried once more: the new connection may take it).
public final class MQTTLatest: ChangePublisher {
    /// A payload as it was handed over: encoded when it is published.
    public enum Payload: Sendable {
        case text(String)
        case state(DaemonState)
        case overlays(Overlays)

        /// The payload's bytes as text (JSON for state and overlays).
        public var encoded: String {
            switch self {
            case .text(let text): text
            case .state(let state): state.json.serialized
            case .overlays(let overlays): overlays.json.serialized
            }
        }
    }

    /// One payload to publish, taken by `next`.
    public struct Pending: Sendable {
        public let topic: String
        public let payload: Payload
        public let version: Int
    }

    private struct Entry {
        var payload: Payload
        var version: Int
        var sentVersion: Int?
        var inFlight: Int?
        /// The version that could not be published on this connection: not taken again.
        var failedVersion: Int?
        /// The latest version `failed` reported as failing for the first time.
        var reportedFailure: Int?
    }

    private struct Storage {
        var entries: [String: Entry] = [:]
        /// Topics in the order they were first set: the order they are published in.
        var order: [String] = []
        var nextVersion = 0
        var wake: (@Sendable () -> Void)?
    }

    private let storage = Mutex(Storage())
    public let topics: MQTTTopics

    public init(topics: MQTTTopics) {
        self.topics = topics
    }

    /// Called (on any thread) after each change: the publisher's wakeup.
    public func onChange(_ wake: @escaping @Sendable () -> Void) {
        storage.withLock { $0.wake = wake }
    }

    public func publish(state: DaemonState) {
        set(topics.state, .state(state))
    }

    public func publish(overlays: Overlays) {
        set(topics.overlays, .overlays(overlays))
    }

    /// Replaces the payload of `message.topic` (retained messages only).
    public func set(_ message: MQTTMessage) {
        set(message.topic, .text(message.payload))
    }

    /// Replaces the payload of `topic`.
    public func set(_ topic: String, _ payload: Payload) {
        let wake = storage.withLock { storage in
            storage.nextVersion += 1
            if var entry = storage.entries[topic] {
                entry.payload = payload
                entry.version = storage.nextVersion
                storage.entries[topic] = entry
            } else {
                storage.entries[topic] = Entry(payload: payload, version: storage.nextVersion)
                storage.order.append(topic)
            }
            return storage.wake
        }
        wake?()
    }

    /// The next payload to publish, in topic order: a topic whose latest payload is not yet sent,
    /// did not fail, and of which nothing is in flight. It counts as in flight until `published` or
    /// `failed`.
    public func next() -> Pending? {
        storage.withLock { storage in
            for topic in storage.order {
                guard var entry = storage.entries[topic], entry.inFlight == nil, entry.sentVersion != entry.version,
                    entry.failedVersion != entry.version
                else { continue }
                entry.inFlight = entry.version
                storage.entries[topic] = entry
                return Pending(topic: topic, payload: entry.payload, version: entry.version)
            }
            return nil
        }
    }

    /// The broker acknowledged `topic`'s payload of `version`. An empty payload (a deletion),
    /// once acknowledged and not replaced since, is forgotten.
    public func published(_ topic: String, version: Int) {
        storage.withLock { storage in
            guard var entry = storage.entries[topic], entry.inFlight == version else { return }
            entry.inFlight = nil
            entry.sentVersion = version
            if entry.version == version, case .text(let text) = entry.payload, text.isEmpty {
                storage.entries[topic] = nil
                storage.order.removeAll { $0 == topic }
            } else {
                storage.entries[topic] = entry
            }
        }
    }

    /// Publishing `topic`'s payload of `version` failed: `next` does not take it again until a
    /// newer payload is set or the connection is lost.
    /// - Returns: true the first time this version failed (to be logged), false after.
    @discardableResult
    public func failed(_ topic: String, version: Int) -> Bool {
        storage.withLock { storage in
            guard var entry = storage.entries[topic], entry.inFlight == version else { return false }
            entry.inFlight = nil
            entry.failedVersion = version
            let first = entry.reportedFailure != version
            entry.reportedFailure = version
            storage.entries[topic] = entry
            return first
        }
    }

    /// The connection is gone: nothing is in flight, and every topic's latest payload is to be
    /// published again on the next connection.
    public func connectionLost() {
        storage.withLock { storage in
            for topic in storage.order {
                storage.entries[topic]?.inFlight = nil
                storage.entries[topic]?.sentVersion = nil
                storage.entries[topic]?.failedVersion = nil
            }
        }
    }

    /// Topics with a payload kept.
    public var topicCount: Int { storage.withLock { $0.order.count } }
}
