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
