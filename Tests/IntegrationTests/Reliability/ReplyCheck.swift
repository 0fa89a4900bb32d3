import Foundation
import WeatherCore

/// What the daemon sent on one connection, sorted and checked against the JSON-RPC 2.0 shapes.
struct ReceivedLines {
    /// Reply objects (with an id member), in arrival order.
    var replies: [JSONValue] = []
    /// Batch replies (arrays of reply objects), in arrival order.
    var batches: [[JSONValue]] = []
    /// The daemon's own notifications (`state`, `overlays` after a `watch`).
    var notifications = 0
    /// Every problem found: a line that is no JSON, or not a JSON-RPC 2.0 message.
    var problems: [String] = []

    var replyCount: Int { replies.count + batches.count }

    init(_ exchange: RawExchange) {
        if !exchange.endsWithNewline {
            problems.append(
                "the daemon's last message does not end with a newline: …\(String(decoding: exchange.received.suffix(200), as: UTF8.self))")
        }
        for bytes in exchange.lines {
            let text = String(decoding: bytes.prefix(300), as: UTF8.self) + (bytes.count > 300 ? "… (\(bytes.count) bytes)" : "")
            // An independent parser (Foundation's) first, so the daemon's writer is not judged by
            // its own reader alone.
            guard (try? JSONSerialization.jsonObject(with: Data(bytes), options: [])) != nil else {
                problems.append("not JSON (Foundation): \(text)")
                continue
            }
            guard let message = try? JSONValue.parse(bytes) else {
                problems.append("not JSON (WeatherCore): \(text)")
                continue
            }
            switch message {
            case .array(let elements):
                if elements.isEmpty { problems.append("an empty batch reply: \(text)") }
                for element in elements {
                    if let problem = Self.replyProblem(element) { problems.append("in a batch reply: \(problem): \(text)") }
                }
                batches.append(elements)
            case .object(let object) where object["id"] == nil && object["method"] != nil:
                if let problem = Self.notificationProblem(message) { problems.append("\(problem): \(text)") }
                notifications += 1
            default:
                if let problem = Self.replyProblem(message) { problems.append("\(problem): \(text)") }
                replies.append(message)
            }
        }
    }

    /// Why `message` is not a JSON-RPC 2.0 response object, or nil.
    static func replyProblem(_ message: JSONValue) -> String? {
        guard let object = message.objectValue else { return "a reply that is not an object" }
        guard object["jsonrpc"] == "2.0" else { return "jsonrpc is not \"2.0\"" }
        switch object["id"] {
        case .string?, .integer?, .double?, .numberText?, .null?: break
        case nil: return "no id member"
        default: return "an id that is not a string, number or null"
        }
        let unknown = object.keys.filter { !["jsonrpc", "id", "result", "error"].contains($0) }
        guard unknown.isEmpty else { return "unknown members \(unknown)" }
        switch (object["result"], object["error"]) {
        case (_?, nil):
            return nil
        case (nil, let error?):
            guard let members = error.objectValue else { return "error is not an object" }
            guard case .integer? = members["code"] else { return "error.code is not an integer" }
            guard members["message"]?.stringValue != nil else { return "error.message is not a string" }
            // docs/protocol.md: error.data always has name.
            guard members["data"]?["name"]?.stringValue != nil else { return "error.data.name is missing" }
            return nil
        case (_?, _?): return "both result and error"
        case (nil, nil): return "neither result nor error"
        }
    }

    /// Why `message` is not one of the daemon's notifications (`state`, `overlays`, `overlays.diff`), or nil.
    static func notificationProblem(_ message: JSONValue) -> String? {
        guard message["jsonrpc"] == "2.0" else { return "a notification whose jsonrpc is not \"2.0\"" }
        guard let method = message["method"]?.stringValue, ["state", "overlays", "overlays.diff"].contains(method) else {
            return "a notification of an unknown method"
        }
        guard message["params"]?.objectValue != nil else { return "a notification without params object" }
        let unknown = (message.objectValue?.keys ?? []).filter { !["jsonrpc", "method", "params"].contains($0) }
        return unknown.isEmpty ? nil : "a notification with unknown members \(unknown)"
    }
}

/// Matches what `lines` must be answered with to what arrived, regardless of arrival order
/// (replies may come in any order; replies with id null are told apart by their outcome). Returns
/// the problems: an expected reply missing, a reply not expected, a count that differs.
func matchReplies(_ lines: [FuzzLine], _ received: ReceivedLines) -> [String] {
    var problems: [String] = []
    var singles: [(line: Int, reply: ExpectedReply)] = []
    var batches: [(line: Int, replies: [ExpectedReply])] = []
    for (index, line) in lines.enumerated() {
        switch line.expectation {
        case .nothing: break
        case .single(let reply): singles.append((index, reply))
        case .batch(let replies): batches.append((index, replies))
        }
    }
    let singleMatch = maximumMatching(expected: singles.count, received: received.replies.count) { e, r in
        singles[e].reply.accepts(received.replies[r])
    }
    for (e, expected) in singles.enumerated() where singleMatch.expectedToReceived[e] == nil {
        problems.append(
            "no reply (\(expected.reply)) to line \(expected.line) [\(lines[expected.line].kind)]: \(lines[expected.line].preview)")
    }
    for (r, reply) in received.replies.enumerated() where singleMatch.receivedToExpected[r] == nil {
        problems.append("a reply that answers no line: \(abbreviated(reply))")
    }
    let batchMatch = maximumMatching(expected: batches.count, received: received.batches.count) { e, r in
        let expected = batches[e].replies
        let got = received.batches[r]
        return expected.count == got.count && zip(expected, got).allSatisfy { $0.accepts($1) }
    }
    for (e, expected) in batches.enumerated() where batchMatch.expectedToReceived[e] == nil {
        problems.append(
            "no batch reply of \(expected.replies.count) [\(expected.replies.prefix(5).map(\.description).joined(separator: "; "))…] to line \(expected.line): \(lines[expected.line].preview)"
        )
    }
    for (r, batch) in received.batches.enumerated() where batchMatch.receivedToExpected[r] == nil {
        problems.append("a batch reply of \(batch.count) that answers no line: \(abbreviated(.array(batch)))")
    }
    return problems
}

private func abbreviated(_ value: JSONValue) -> String {
    let text = value.serialized
    return text.count > 400 ? String(text.prefix(400)) + "…" : text
}

/// A maximum bipartite matching (Kuhn's augmenting paths; the graphs here have at most a few
/// hundred nodes) between expected and received replies, where `fits(e, r)` says whether received
/// reply `r` can answer expectation `e`.
func maximumMatching(
    expected: Int, received: Int, fits: (Int, Int) -> Bool
) -> (expectedToReceived: [Int?], receivedToExpected: [Int?]) {
    var candidates = [[Int]](repeating: [], count: expected)
    for e in 0..<expected {
        for r in 0..<received where fits(e, r) { candidates[e].append(r) }
    }
    var receivedToExpected = [Int?](repeating: nil, count: received)
    func augment(_ e: Int, _ visited: inout [Bool]) -> Bool {
        for r in candidates[e] where !visited[r] {
            visited[r] = true
            if receivedToExpected[r] == nil || augment(receivedToExpected[r]!, &visited) {
                receivedToExpected[r] = e
                return true
            }
        }
        return false
    }
    for e in 0..<expected {
        var visited = [Bool](repeating: false, count: received)
        _ = augment(e, &visited)
    }
    var expectedToReceived = [Int?](repeating: nil, count: expected)
    for (r, e) in receivedToExpected.enumerated() { if let e { expectedToReceived[e] = r } }
    return (expectedToReceived, receivedToExpected)
}
