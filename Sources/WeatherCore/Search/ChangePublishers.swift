/// Hands every change to several publishers, in the order given (the socket's hub, then MQTT).
public struct ChangePublishers: ChangePublisher {
    private let publishers: [any ChangePublisher]

    public init(_ publishers: [any ChangePublisher]) {
        self.publishers = publishers
    }

    public func publish(state: DaemonState) {
        for publisher in publishers { publisher.publish(state: state) }
    }

    public func publish(overlays: Overlays) {
        for publisher in publishers { publisher.publish(overlays: overlays) }
    }
}
