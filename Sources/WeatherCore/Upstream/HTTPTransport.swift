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

/// Why an HTTP request got no response.
public struct HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad kind of failure.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// The request did not complete within its timeout.
        public static let timedOut = Kind(name: "timed out")
        /// No connection could be made (refused, unreachable, name not resolved).
        public static let connectionFailed = Kind(name: "connection failed")
        /// Any other transport failure (TLS, protocol, local resource).
        public static let other = Kind(name: "transport error")
        public var description: String { name }
    }

    public var kind: Kind
    /// A human-readable detail. Never contains the request URL's query (it carries the API key).
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind): \(message)" }
}

/// Performs HTTP GET requests. The daemon uses libcurl; tests substitute an in-memory transport.
///
/// Implementations reuse connections across requests and honour task cancellation.
public protocol HTTPTransport: Sendable {
    /// Fetches `url` and returns whatever response the server gave, whatever its status.
    /// - Throws: `HTTPTransportError` when no response was received, `CancellationError` when the
    ///   calling task was cancelled.
    func get(_ url: String, timeout: Duration) async throws -> HTTPResponse
}
