import Synchronization

/// Tells the connection's reader that a request has entered the search stream, so the next
/// request may be read: inputs from one client enter the stream in the order they were sent, while
/// the slow part of each (the lookup) runs concurrently with the requests after it.
///
/// Signalled once; later signals do nothing. `RequestHandler` signals at the latest when it is done.
public final class Admission: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, Never>?>

    public init(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation = Mutex(continuation)
    }

    public func signal() {
        let waiting = continuation.withLock { stored -> CheckedContinuation<Void, Never>? in
            defer { stored = nil }
            return stored
        }
        waiting?.resume()
    }
}
