import Synchronization

@testable import TestSupport
@testable import WeatherCore

/// An in-memory `HTTPTransport`: answers each URL with the reply of the last rule whose pattern the
/// URL contains, counts and records requests, and can hold a reply behind a `Gate` until the test
/// opens it (single flight, out-of-order answers). A URL no rule matches gets a connection failure.
final class ScriptedTransport: HTTPTransport, Sendable {
    enum Reply: Sendable {
        case response(HTTPResponse)
        case failure(any Error & Sendable)

        static func status(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Reply {
            .response(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)))
        }

        static func ok(_ body: [UInt8]) -> Reply {
            .response(HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: body))
        }
    }

    private struct Rule {
        var pattern: String
        var reply: Reply
        var gate: Gate?
    }

    private struct State {
        var rules: [Rule] = []
        var urls: [String] = []
        var waiters: [(count: Int, pattern: String, continuation: CheckedContinuation<Void, Never>)] = []

        func count(matching pattern: String) -> Int {
            pattern.isEmpty ? urls.count : urls.filter { $0.contains(pattern) }.count
        }
    }

    private let state = Mutex(State())

    init() {}

    /// Answers URLs containing `pattern` with `reply` (a later rule for the same pattern replaces it).
    /// With `gated`, replies wait behind the returned gate.
    @discardableResult
    func on(_ pattern: String, _ reply: Reply, gated: Bool = false) -> Gate {
        let gate = Gate(open: !gated)
        state.withLock { state in
            state.rules.removeAll { $0.pattern == pattern }
            state.rules.append(Rule(pattern: pattern, reply: reply, gate: gate))
        }
        return gate
    }

    /// Every URL requested so far, in order.
    var requestedURLs: [String] { state.withLock { $0.urls } }
    var requestCount: Int { state.withLock { $0.urls.count } }

    /// Requests whose URL contains `pattern`.
    func requests(matching pattern: String) -> Int {
        state.withLock { $0.count(matching: pattern) }
    }

    /// Returns once at least `count` requests (whose URL contains `pattern`, when one is given) have
    /// arrived.
    func waitForRequests(_ count: Int, matching pattern: String = "") async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.count(matching: pattern) >= count { return true }
                state.waiters.append((count, pattern, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    func get(_ url: String, timeout: Duration) async throws -> HTTPResponse {
        let (rule, ready) = state.withLock { state in
            state.urls.append(url)
            let reached = state.waiters.map { $0.count <= state.count(matching: $0.pattern) }
            let ready = zip(state.waiters, reached).filter(\.1).map(\.0.continuation)
            state.waiters = zip(state.waiters, reached).filter { !$0.1 }.map(\.0)
            return (state.rules.last { url.contains($0.pattern) }, ready)
        }
        for waiter in ready { waiter.resume() }
        guard let rule else { throw HTTPTransportError(.connectionFailed, "no scripted reply") }
        await rule.gate?.pass()
        try Task.checkCancellation()
        switch rule.reply {
        case .response(let response): return response
        case .failure(let error): throw error
        }
    }
}
