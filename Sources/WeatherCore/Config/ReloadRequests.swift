import Synchronization

/// Asks the running daemon to read its configuration again, as SIGHUP does, and to say how it went:
/// the `reload` method (what `systemctl reload` runs through `weatherctl reload`, so it returns only
/// once the new configuration is in force). The daemon's reloader serves the requests one at a time.
public final class ReloadRequests: Sendable {
    /// How a reload went.
    public enum Outcome: Sendable, Equatable {
        /// In force; `changed` names the keys that changed, `restartNeeded` those that wait for a restart.
        case applied(changed: [String], restartNeeded: [String])
        /// The file is broken: the running configuration stays. `problems` are its messages.
        case rejected(problems: [String])
    }

    /// One reload asked for; its requester waits for the outcome.
    public final class Request: Sendable {
        private struct State {
            var outcome: Outcome?
            var waiter: CheckedContinuation<Outcome?, Never>?
            var cancelled = false
        }

        private let state = Mutex(State())

        init() {}

        /// The reloader is done with it.
        public func complete(_ outcome: Outcome) {
            let waiter = state.withLock { state -> CheckedContinuation<Outcome?, Never>? in
                state.outcome = outcome
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: outcome)
        }

        /// The outcome; nil when the waiting task is cancelled first (or the daemon is stopping).
        func wait() async -> Outcome? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
                    let now = state.withLock { state -> Outcome?? in
                        if let outcome = state.outcome { return .some(outcome) }
                        if state.cancelled || Task.isCancelled { return .some(nil) }
                        state.waiter = continuation
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                abandon()
            }
        }

        /// Nobody will complete it (the daemon is stopping) or wait for it (the requester left).
        public func abandon() {
            let waiter = state.withLock { state -> CheckedContinuation<Outcome?, Never>? in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    private let continuation: AsyncStream<Request>.Continuation
    /// What the reloader serves, in order.
    public let requests: AsyncStream<Request>

    public init() {
        (requests, continuation) = AsyncStream.makeStream(of: Request.self)
        continuation.onTermination = { _ in }
    }

    /// Asks for a reload and waits until it is done; nil when the daemon stops first or the
    /// waiting task is cancelled.
    public func reload() async -> Outcome? {
        let request = Request()
        if case .terminated = continuation.yield(request) { return nil }
        return await request.wait()
    }

    /// The reloader stops: requests not served yet end without an outcome.
    public func finish() {
        continuation.finish()
    }
}
