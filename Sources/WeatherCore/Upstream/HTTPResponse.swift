/// One HTTP response, as the transport received it.
public struct HTTPResponse: Sendable, Equatable {
    /// The HTTP status code, e.g. 200.
    public var status: Int
    /// Response headers with lower-cased names; a repeated header keeps its last value.
    public var headers: [String: String]
    /// The response body.
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
