import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// A client that sent `watch` and collects every message it receives, in a task of its own, so a
/// test can await notifications while it talks to the daemon on other connections.
final class Watcher: Sendable {
    struct Inbox: Sendable {
        var watchReply: JSONValue?
        /// Every message after the watch request was sent (notifications; replies have an id).
        var messages: [JSONValue] = []
        /// Messages before this index were consumed by `next`.
        var cursor = 0
        /// The connection ended (the daemon closed it, or it failed: `failure`).
        var ended = false
        var failure: String?
    }

    let inbox = Observed(Inbox())
    private let task: Task<Void, Never>

    /// Connects, sends `watch` with `params` and returns once its reply arrived.
    static func start(socketPath: String, params: JSONObject = [:]) async throws -> Watcher {
        let watcher = Watcher(socketPath: socketPath, params: params)
        _ = try await watcher.inbox.wait(for: "the reply to watch") { inbox -> JSONValue? in
            if let reply = inbox.watchReply { return reply }
            if inbox.ended { throw ChildProcessError(message: "watch failed: \(inbox.failure ?? "the daemon closed the connection")") }
            return nil
        }
        return watcher
    }

    private init(socketPath: String, params: JSONObject) {
        let inbox = self.inbox
        task = Task {
            do {
                try await DaemonConnection.with(socketPath: socketPath) { connection in
                    let reply = try await connection.call("watch", params) { message in
                        inbox.update { $0.messages.append(message) }
                    }
                    inbox.update { $0.watchReply = reply }
                    while let message = try await connection.receive() {
                        inbox.update { $0.messages.append(message) }
                    }
                }
                inbox.update { $0.ended = true }
            } catch {
                inbox.update {
                    $0.ended = true
                    $0.failure = "\(error)"
                }
            }
        }
    }

    deinit {
        task.cancel()
    }

    /// Closes the connection.
    func close() async {
        task.cancel()
        await task.value
    }

    var watchReply: JSONValue? { inbox.value.watchReply }
    var messages: [JSONValue] { inbox.value.messages }

    /// The next message (after those already consumed) that matches `predicate`; the messages
    /// skipped on the way are consumed too and returned in `skipped`.
    @discardableResult
    func next(
        _ what: String, timeout: Duration? = safetyDeadline, where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async throws -> (message: JSONValue, skipped: [JSONValue]) {
        try await inbox.wait(for: "\(what); received so far: \(describe(inbox.value.messages))", timeout: timeout) { inbox in
            if let index = inbox.messages[inbox.cursor...].firstIndex(where: predicate) {
                let skipped = Array(inbox.messages[inbox.cursor..<index])
                inbox.cursor = index + 1
                return (inbox.messages[index], skipped)
            }
            if inbox.ended {
                throw ChildProcessError(message: "the connection ended (\(inbox.failure ?? "closed by the daemon")) before \(what)")
            }
            return nil
        }
    }

    /// Waits until the daemon closed the connection; returns the failure, if any.
    func waitUntilEnded(timeout: Duration = safetyDeadline) async throws -> String? {
        try await inbox.wait(for: "the daemon to close the watching connection", timeout: timeout) { inbox -> String?? in
            inbox.ended ? .some(inbox.failure) : nil
        }
    }
}

/// Short text for messages in a failure report.
func describe(_ messages: [JSONValue]) -> String {
    messages.map { message in
        let text = message.serialized
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }.joined(separator: "\n")
}

extension JSONValue {
    /// The method of a notification.
    var method: String? { self["method"]?.stringValue }
    var params: JSONValue? { self["params"] }

    var isStateNotification: Bool { method == "state" }
    var isOverlaysNotification: Bool { method == "overlays" }

    /// The features' ids of an overlays FeatureCollection.
    var featureIDs: [String] { self["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }

    /// `[lon, lat]` as numbers.
    var position: [Double]? { arrayValue?.compactMap(\.doubleValue) }
}

/// London's id and position in the recorded data.
enum Fixtures {
    static let londonID = "owm:2643743"
    static let londonPosition = [-0.1257, 51.5085]
}

/// Whether a state notification is settled: nothing running and the phase decided.
extension Watcher {
    /// Awaits the daemon's start-up round as this watcher sees it: the replayed state, then the
    /// overlays of that round (`seq` 1 or later: the round publishes them once even with no
    /// cities). A watcher that connected before the round ran gets those overlays after its
    /// replay, and a test that counts overlays changes would count them as its own.
    func awaitStartUpRound() async throws {
        try await next("the replayed state", where: isSettledState)
        try await next("the start-up round's overlays") { $0.isOverlaysNotification && ($0.params?["seq"]?.intValue ?? 0) >= 1 }
    }
}

func isSettledState(_ message: JSONValue) -> Bool {
    message.isStateNotification && message.params?["running"]?.boolValue == false && message.params?["phase"] != "loading"
}

/// The spec: `running` is the activity indicator and `loading` the phase of a search under way, so
/// a state that is not running must not be loading, not even for a moment between two notifications
/// (an input's last lookup counted off `pending` and its outcome are one state).
func expectNoIdleLoadingState(_ messages: [JSONValue], sourceLocation: SourceLocation = #_sourceLocation) {
    let idleLoading = messages.filter {
        $0.isStateNotification && $0.params?["running"]?.boolValue == false && $0.params?["phase"] == "loading"
    }
    #expect(idleLoading.count == 0, "states not running but loading: \(describe(idleLoading))", sourceLocation: sourceLocation)
}
