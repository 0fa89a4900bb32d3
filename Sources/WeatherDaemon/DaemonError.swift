/// A fatal error of the daemon (exit status 1).
public struct DaemonError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
