/// The topics of one weatherd on the broker, `P/D/...` with `P` = `mqtt.topic_prefix` and `D` =
/// `mqtt.client_id` (the host name when that is empty).
public struct MQTTTopics: Sendable, Equatable {
    public let prefix: String
    public let device: String

    public init(prefix: String, device: String) {
        self.prefix = prefix
        self.device = device
    }

    /// `online` / `offline`, retained; the Last Will.
    public var status: String { "\(prefix)/\(device)/status" }
    /// The overlays FeatureCollection, retained.
    public var overlays: String { "\(prefix)/\(device)/overlays" }
    /// The state, retained.
    public var state: String { "\(prefix)/\(device)/state" }
    /// JSON-RPC requests in.
    public var request: String { "\(prefix)/\(device)/request" }
    /// Replies out, when the request named no MQTT 5 response topic.
    public var reply: String { "\(prefix)/\(device)/reply" }
    /// A place's weather for Home Assistant's sensors (`key` from ``HomeAssistantDiscovery``), retained.
    public func place(_ key: String) -> String { "\(prefix)/\(device)/place/\(key)" }
    /// A watched city's forecast for Home Assistant (``HomeAssistantForecast``), retained.
    public func forecast(_ key: String) -> String { "\(prefix)/\(device)/forecast/\(key)" }

    /// The payloads of `status`.
    public static let online = "online"
    public static let offline = "offline"
}

/// One message to publish: QoS 1, retained or not. An empty retained payload deletes the topic's
/// retained message (and, for a discovery topic, Home Assistant's entity).
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: String
    public var retained: Bool

    public init(topic: String, payload: String, retained: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }
}
