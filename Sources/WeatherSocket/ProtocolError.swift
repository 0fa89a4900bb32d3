/// The daemon's answer could not be understood.
public struct ProtocolError: Error, CustomStringConvertible {
    public var message: String
    package init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
