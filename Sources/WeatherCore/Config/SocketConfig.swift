/// The `[socket]` table.
public struct SocketConfig: Sendable, Equatable {
    /// `path`: where the Unix domain socket is created.
    public var path: String
    /// `mode`: file mode of the socket (written in the file as an octal string like `"0660"`).
    public var mode: UInt32
    /// `max_clients`: connections served at once; one more is answered `busy` and closed.
    public var maxClients: Int

    /// The `[socket]` table; every value not given has its default.
    public init(path: String = "/run/weatherd/weatherd.sock", mode: UInt32 = 0o660, maxClients: Int = 256) {
        self.path = path
        self.mode = mode
        self.maxClients = maxClients
    }
}
