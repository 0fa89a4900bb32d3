import WeatherRPC

/// The daemon answered with a JSON-RPC error.
public struct RemoteError: Error, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var name: String?
    public var json: JSONValue

    public init(json: JSONValue) {
        self.json = json
        self.code = json["code"]?.intValue ?? 0
        self.message = json["message"]?.stringValue ?? "unknown error"
        self.name = json["data"]?["name"]?.stringValue
    }

    public var description: String { message }
}
