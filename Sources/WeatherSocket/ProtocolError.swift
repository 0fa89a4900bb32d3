/// The daemon's answer could not be understood.
public struct ProtocolError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
