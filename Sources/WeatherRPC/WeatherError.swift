/// An error that a client sees: a JSON-RPC error code, its name and a message.
///
/// Codes are a struct with static members, so new codes never break callers.
public struct WeatherError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A JSON-RPC error code with the spec's name for it.
    public struct Code: Sendable, Hashable {
        public let value: Int
        public let name: String

        public static let parseError = Code(value: -32700, name: "parse_error")
        public static let invalidRequest = Code(value: -32600, name: "invalid_request")
        public static let methodNotFound = Code(value: -32601, name: "method_not_found")
        public static let invalidParams = Code(value: -32602, name: "invalid_params")
        public static let internalError = Code(value: -32603, name: "internal_error")
        public static let notFound = Code(value: -32001, name: "not_found")
        public static let unauthorized = Code(value: -32002, name: "unauthorized")
        public static let rateLimited = Code(value: -32003, name: "rate_limited")
        public static let upstreamUnavailable = Code(value: -32004, name: "upstream_unavailable")
        public static let noFix = Code(value: -32005, name: "no_fix")
        public static let gpsDisabled = Code(value: -32006, name: "gps_disabled")
        public static let busy = Code(value: -32007, name: "busy")
    }

    public var code: Code
    public var message: String
    /// Extra members of `error.data` beside `name` (never the API key).
    public var details: JSONObject

    public init(_ code: Code, _ message: String, details: JSONObject = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// The JSON-RPC error object: `{"code", "message", "data": {"name", …}}`.
    public var json: JSONValue {
        var data: JSONObject = ["name": .string(code.name)]
        for (key, value) in details.members { data[key] = value }
        return .object(["code": .integer(Int64(code.value)), "message": .string(message), "data": .object(data)])
    }

    public var description: String { "\(code.name): \(message)" }

    public static func notFound(_ city: String) -> WeatherError {
        WeatherError(.notFound, "city not found: \(city)", details: ["city": .string(city)])
    }

    public static func invalidParams(_ message: String) -> WeatherError {
        WeatherError(.invalidParams, message)
    }
}
