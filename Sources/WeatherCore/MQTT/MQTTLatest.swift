import Synchronization

/// What weatherd has to publish to the broker: the latest payload of each retained topic, never a
/// backlog, and the replies to requests. It is the engine's `ChangePublisher` for MQTT: a change only
/// replaces the topic's payload (encoded later, by the publisher, not in the engine) and wakes the
/// publisher.
///
/// The rules (what is kept while the broker is away, what is dropped and counted, one payload of a
/// topic in flight, a failed payload not taken again) are ``MQTTLatestState``'s; this class holds it
/// under a lock, called from the engine's side and from the publisher's thread.
public final class MQTTLatest: ChangePublisher {
    public typealias Payload = MQTTLatestState.Payload
    public typealias Pending = MQTTLatestState.Pending

    private struct Storage {
        var state = MQTTLatestState()
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
            storage.state.set(topic, payload)
            return storage.wake
        }
        wake?()
    }

    /// See ``MQTTLatestState/next()``.
    public func next() -> Pending? {
        storage.withLock { $0.state.next() }
    }

    /// See ``MQTTLatestState/published(_:version:)``.
    public func published(_ topic: String, version: Int) {
        storage.withLock { $0.state.published(topic, version: version) }
    }

    /// See ``MQTTLatestState/failed(_:version:)``.
    @discardableResult
    public func failed(_ topic: String, version: Int) -> Bool {
        storage.withLock { $0.state.failed(topic, version: version) }
    }

    /// Queues a reply (a request was answered) and wakes the publisher.
    public func queue(_ reply: MQTTReply) {
        let wake = storage.withLock { storage in
            storage.state.queue(reply)
            return storage.wake
        }
        wake?()
    }

    /// The replies queued, in order, to publish now.
    public func takeReplies() -> [MQTTReply] {
        storage.withLock { $0.state.takeReplies() }
    }

    /// See ``MQTTLatestState/connectionLost()``: returns how many replies were dropped.
    @discardableResult
    public func connectionLost() -> Int {
        storage.withLock { $0.state.connectionLost() }
    }

    /// Topics with a payload kept.
    public var topicCount: Int { storage.withLock { $0.state.topicCount } }
}
