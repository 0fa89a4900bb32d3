/// JSON-RPC 2.0 envelopes as lines of the socket protocol.
public enum RPCMessage {
    /// The protocol version of `version`.
    public static let protocolVersion = 1
    /// The longest line a client may send, in bytes without its newline.
    public static let maxLineBytes = 64 * 1024

    public static func result(id: JSONValue, _ result: JSONValue) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": id, "result": result])
    }

    /// The text of `result(id:_:)` for a result whose JSON text is `text`.
    public static func result(id: JSONValue, text: String) -> String {
        // Appended to a string, not written as bytes: the result's text is most of the line, and a
        // string takes another whole, where bytes made into a string are validated again.
        var line = ""
        line.reserveCapacity(text.utf8.count + 64)  // the envelope and an id of a few digits: one allocation
        line += #"{"jsonrpc":"2.0","id":"#
        if case .integer(let number) = id { line += String(number) } else { line += id.serialized }
        line += #","result":"#
        line += text
        line += "}"
        return line
    }

    public static func error(id: JSONValue, _ error: WeatherError) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": id, "error": error.json])
    }

    public static func notification(method: String, params: JSONValue) -> String {
        JSONValue.object(["jsonrpc": "2.0", "method": .string(method), "params": params]).serialized
    }

    /// The text of `notification(method:params:)` for params whose JSON text is `text` (a
    /// collection or a diff written once for every watcher).
    public static func notification(method: String, text: String) -> String {
        #"{"jsonrpc":"2.0","method":"# + JSONValue.string(method).serialized + #","params":"# + text + "}"
    }

    public static func request(id: Int, method: String, params: JSONObject = [:]) -> String {
        JSONValue.object(["jsonrpc": "2.0", "id": .integer(Int64(id)), "method": .string(method), "params": .object(params)]).serialized
    }
}
