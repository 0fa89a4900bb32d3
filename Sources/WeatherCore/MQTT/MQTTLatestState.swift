/// What waits to go to the broker, as a plain state machine (``MQTTLatest`` holds it under its
/// lock): events in (a payload set, taken, acknowledged or failed; a reply queued or taken; the
/// connection lost), what to publish out.
///
/// What is kept while the broker is away, and what is dropped:
/// - **Kept**: the latest payload of each retained topic, never a backlog. A topic's payload is
///   taken (``next()``) only while none of it is in flight; one set meanwhile waits for the
///   acknowledgement. After a lost connection every topic's latest payload goes out again.
/// - **Dropped, counted**: a payload replaced before it went out (``replacedUnsent``); the replies
///   not yet taken when the connection is lost (``connectionLost()``, ``repliesDropped``).
/// - A payload the client could not publish (too large for the broker, say) is not taken again
///   until it is replaced or the connection is lost; the other topics go on.
public struct MQTTLatestState: Sendable {
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

        /// An empty text: the deletion of a retained message.
        var isDeletion: Bool {
            if case .text(let text) = self { text.isEmpty } else { false }
        }
    }

    /// One payload to publish, taken by ``next()``.
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
        /// The latest version taken to be published, on any connection.
        var takenVersion: Int?
    }

    private var entries: [String: Entry] = [:]
    /// Topics in the order they were first set: the order they are published in.
    private var order: [String] = []
    private var nextVersion = 0
    private var replies: [MQTTReply] = []
    /// Payloads replaced before they were taken: never published (only the latest of a topic is).
    public private(set) var replacedUnsent = 0
    /// Replies dropped because the connection was lost before they were taken.
    public private(set) var repliesDropped = 0

    public init() {}

    /// Topics with a payload kept.
    public var topicCount: Int { order.count }

    /// Replaces the payload of `topic`; one not taken yet is dropped (counted).
    public mutating func set(_ topic: String, _ payload: Payload) {
        nextVersion += 1
        guard var entry = entries[topic] else {
            entries[topic] = Entry(payload: payload, version: nextVersion)
            order.append(topic)
            return
        }
        if entry.takenVersion != entry.version { replacedUnsent += 1 }
        entry.payload = payload
        entry.version = nextVersion
        entries[topic] = entry
    }

    /// The next payload to publish, in topic order: a topic whose latest payload is not yet sent,
    /// did not fail, and of which nothing is in flight. It counts as in flight until ``published(_:version:)``
    /// or ``failed(_:version:)``.
    public mutating func next() -> Pending? {
        for topic in order {
            guard var entry = entries[topic], entry.inFlight == nil, entry.sentVersion != entry.version,
                entry.failedVersion != entry.version
            else { continue }
            entry.inFlight = entry.version
            entry.takenVersion = entry.version
            entries[topic] = entry
            return Pending(topic: topic, payload: entry.payload, version: entry.version)
        }
        return nil
    }

    /// The broker acknowledged `topic`'s payload of `version`. An empty payload (a deletion),
    /// once acknowledged and not replaced since, is forgotten.
    public mutating func published(_ topic: String, version: Int) {
        guard var entry = entries[topic], entry.inFlight == version else { return }
        entry.inFlight = nil
        entry.sentVersion = version
        if entry.version == version, entry.payload.isDeletion {
            entries[topic] = nil
            order.removeAll { $0 == topic }
        } else {
            entries[topic] = entry
        }
    }

    /// Publishing `topic`'s payload of `version` failed: ``next()`` does not take it again until a
    /// newer payload is set or the connection is lost.
    /// - Returns: true the first time this version failed (to be logged), false after.
    public mutating func failed(_ topic: String, version: Int) -> Bool {
        guard var entry = entries[topic], entry.inFlight == version else { return false }
        entry.inFlight = nil
        entry.failedVersion = version
        let first = entry.reportedFailure != version
        entry.reportedFailure = version
        entries[topic] = entry
        return first
    }

    /// A reply to publish on the connection (taken with ``takeReplies()``).
    public mutating func queue(_ reply: MQTTReply) {
        replies.append(reply)
    }

    /// The replies queued, in order; they are the caller's to publish now.
    public mutating func takeReplies() -> [MQTTReply] {
        defer { replies.removeAll() }
        return replies
    }

    /// The connection is gone: nothing is in flight, every topic's latest payload is to be published
    /// again on the next connection, and the replies not taken are dropped.
    /// - Returns: how many replies were dropped.
    public mutating func connectionLost() -> Int {
        for topic in order {
            entries[topic]?.inFlight = nil
            entries[topic]?.sentVersion = nil
            entries[topic]?.failedVersion = nil
        }
        let dropped = replies.count
        repliesDropped += dropped
        replies.removeAll()
        return dropped
    }
}
