/// A reply to a request received over MQTT, to publish (not retained).
public struct MQTTReply: Sendable, Equatable {
    public var topic: String
    public var payload: String
    /// The MQTT 5 correlation data of the request, echoed with the reply.
    public var correlation: [UInt8]?

    public init(topic: String, payload: String, correlation: [UInt8]? = nil) {
        self.topic = topic
        self.payload = payload
        self.correlation = correlation
    }
}
