/// The daemon could not be reached.
public struct ConnectError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "cannot connect to \(path): \(reason) (is weatherd running?)" }
}
