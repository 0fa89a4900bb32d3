import WeatherRPC

/// What a message from the daemon means to a client waiting for the reply to its request `id`:
/// the one rule of `DaemonConnection.call` (async, NIO) and `DaemonSocket.call` (blocking).
package enum ReplyWait {
    /// The reply's `result`.
    case reply(JSONValue)
    /// A notification (it has a `method`) that arrived before the reply.
    case notification(JSONValue)
    /// Anything else (a reply to another request): read on.
    case other

    /// - Throws: `RemoteError` for an error reply to `id`, or an error without an id (a refusal
    ///   such as busy, sent before the daemon closes); `ProtocolError` for a reply with neither
    ///   `result` nor `error`.
    package static func classify(_ message: JSONValue, id: Int) throws -> ReplyWait {
        guard message["id"] == .integer(Int64(id)) else {
            if message["method"] != nil { return .notification(message) }
            if let refusal = refusal(message) { throw refusal }
            return .other
        }
        if let error = message["error"] { throw RemoteError(json: error) }
        guard let result = message["result"] else { throw ProtocolError(message: "a reply without result or error") }
        return .reply(result)
    }

    /// The refusal in `message` when it is an error without an id: a daemon at
    /// `socket.max_clients` sends busy and closes at once, so a request may find the connection
    /// closed, and what the daemon said is the thing to report.
    package static func refusal(_ message: JSONValue) -> RemoteError? {
        guard let error = message["error"], message["id"] == .null else { return nil }
        return RemoteError(json: error)
    }
}
