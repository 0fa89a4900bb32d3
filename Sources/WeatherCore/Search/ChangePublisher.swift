/// Receives every change of the state and the overlays, in the order they happen.
///
/// The engine calls it after the turn that made the changes, outside its isolation, from one caller
/// at a time (``ChangeDelivery``), so a publisher sees changes in exactly the engine's order. The
/// socket's `NotificationHub` is the daemon's publisher.
public protocol ChangePublisher: Sendable {
    func publish(state: DaemonState)
    func publish(overlays: Overlays)
}
