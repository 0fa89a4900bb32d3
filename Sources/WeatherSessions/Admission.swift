import WeatherCore

/// The point where one message of a client has entered the search stream (a search has begun, a
/// locate waits for its fix), or else is done: whoever reads the client's messages waits for it
/// before it starts the next, so they enter the stream in the order they were sent (latest wins),
/// while their lookups run beside each other. ``RequestHandler/handle(line:outbox:access:admission:)``
/// opens it; the Unix socket, the web and MQTT wait on it.
public final class Admission: Sendable {
    private let opened = Wakeup()

    public init() {}

    /// The message has entered the stream, or is done; or its client hung up. More calls do no harm.
    public func open() {
        opened.wake()
    }

    /// Waits until open (true) or until the task is cancelled (false).
    public func entered() async -> Bool {
        await opened.wait()
    }
}
