/// Values that have one JSON form on the socket.
public protocol JSONRepresentable {
    var json: JSONValue { get }
}
