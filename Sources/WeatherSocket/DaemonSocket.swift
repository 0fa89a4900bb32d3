import WeatherRPC

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A blocking connection to weatherd's socket, for `weatherctl`: one process, one connection,
/// one request at a time (or one `watch`), so it needs no event loop and starts no thread.
/// Starting an event-loop group and the concurrency runtime's threads cost `weatherctl` more than
/// its whole round trip.
///
/// Every read ends when the daemon answers or closes the connection; a signal ends the process.
/// `DaemonConnection` (in `WeatherClient`, on NIO) is the async form, for callers that must not
/// block a thread.
public final class DaemonSocket {
    /// The daemon's lines can be long (overlays of a large grid); this bounds one of them.
    public static let maxLineBytes = 16 * 1024 * 1024

    private let fd: Int32
    /// Bytes read; those before `start` were returned as lines (dropped before the next read).
    private var buffer: [UInt8] = []
    private var start = 0
    /// How far `buffer` has been searched for a newline.
    private var scanned = 0
    private var closedByDaemon = false
    private var nextID = 1

    /// Connects to the daemon at `socketPath`, runs `body`, then closes the connection.
    /// - Throws: `ConnectError` when the daemon cannot be reached, else what `body` throws.
    public static func with<Result>(socketPath: String, _ body: (DaemonSocket) throws -> Result) throws -> Result {
        let socket = try DaemonSocket(path: socketPath)
        defer { Glibc.close(socket.fd) }
        return try body(socket)
    }

    /// Connects to the daemon at `socketPath`, for a caller that waits on several descriptors with
    /// poll(2) (`fileDescriptor`, `readAvailable()`, `bufferedMessage()`); it ends the connection
    /// with `close()`.
    /// - Throws: `ConnectError` when the daemon cannot be reached.
    public static func open(socketPath: String) throws -> DaemonSocket {
        try DaemonSocket(path: socketPath)
    }

    /// The connection's descriptor, to wait on with poll(2).
    public var fileDescriptor: Int32 { fd }

    /// Ends a connection made with `open(socketPath:)`.
    public func close() {
        Glibc.close(fd)
    }

    /// Reads once what the daemon sent (it blocks unless poll(2) said the socket is readable).
    /// - Returns: false once the daemon closed the connection.
    /// - Throws: `ConnectionLost` when the connection was reset.
    public func readAvailable() throws -> Bool {
        compact()
        try fill()
        return !closedByDaemon
    }

    /// The next whole message already read, without reading more; nil when none is buffered.
    /// - Throws: `ProtocolError` for a line over `maxLineBytes` or one that is not JSON.
    public func bufferedMessage() throws -> JSONValue? {
        try message(from: bufferedLine)
    }

    private init(path: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw ConnectError(
                path: path, reason: bytes.isEmpty ? "empty socket path" : "the path is longer than a Unix socket path may be")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ConnectError(path: path, reason: Self.reason(errno)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ConnectError(path: path, reason: Self.reason(code))
        }
        self.fd = fd
    }

    /// Sends one line (a newline is added).
    /// - Throws: `ConnectionLost` when the daemon closed or reset the connection.
    public func send(_ line: String) throws {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a closed connection is an error to report, not a SIGPIPE that kills.
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw ConnectionLost(reason: Self.reason(errno))
            }
            offset += sent
        }
    }

    /// The next message from the daemon, or nil when it closed the connection.
    /// - Throws: `ProtocolError` for a line over `maxLineBytes` or one that is
    ///   not JSON; `ConnectionLost` when the connection was reset.
    public func receive() throws -> JSONValue? {
        try message(from: nextLine)
    }

    /// The first non-empty line `line` gives, parsed; nil once it gives none.
    private func message(from line: () throws -> ArraySlice<UInt8>?) throws -> JSONValue? {
        while let line = try line() {
            if line.isEmpty { continue }
            do {
                return try JSONValue.parse(line)
            } catch {
                throw ProtocolError(message: "the daemon sent a line that is not JSON: \(error)")
            }
        }
        return nil
    }

    /// Sends a request and returns its reply's `result`; notifications that arrive first are
    /// passed to `onNotification`.
    /// - Throws: `RemoteError` for a JSON-RPC error reply, `ProtocolError` when the daemon closed
    ///   the connection first or answered nonsense.
    public func call(_ method: String, _ params: JSONObject = [:], onNotification: (JSONValue) -> Void = { _ in }) throws -> JSONValue {
        let id = nextID
        nextID += 1
        do {
            try send(RPCMessage.request(id: id, method: method, params: params))
        } catch {
            while let message = try? receive() {
                if let refusal = ReplyWait.refusal(message) { throw refusal }
            }
            throw error
        }
        while let message = try receive() {
            switch try ReplyWait.classify(message, id: id) {
            case .reply(let result): return result
            case .notification(let notification): onNotification(notification)
            case .other: continue
            }
        }
        throw ProtocolError(message: "the daemon closed the connection before answering")
    }

    /// The next line without its "\n" (and a "\r" before it), the last one even without a
    /// newline, or nil at the end.
    private func nextLine() throws -> ArraySlice<UInt8>? {
        while true {
            if let line = try bufferedLine() { return line }
            if closedByDaemon { return nil }
            compact()
            try fill()
        }
    }

    /// The next line already read (the last one, without a newline, once the daemon closed the
    /// connection), or nil when more must be read.
    private func bufferedLine() throws -> ArraySlice<UInt8>? {
        if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
            var end = newline
            if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = buffer[start..<end]
            start = newline + 1
            scanned = start
            return try bounded(line)
        }
        scanned = buffer.count
        if buffer.count - start > Self.maxLineBytes + 1 { return try bounded(buffer[start...]) }
        if closedByDaemon, start < buffer.count {
            var line = buffer[start...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            start = buffer.count
            scanned = start
            return try bounded(line)
        }
        return nil
    }

    /// Drops the lines before `start`, which were returned.
    private func compact() {
        buffer.removeSubrange(..<start)
        scanned -= start
        start = 0
    }

    private func bounded(_ line: ArraySlice<UInt8>) throws -> ArraySlice<UInt8> {
        guard line.count <= Self.maxLineBytes else {
            throw ProtocolError(message: "the daemon sent a line over \(Self.maxLineBytes) bytes")
        }
        return line
    }

    /// Reads what the daemon sent (blocks until it sends or closes).
    private func fill() throws {
        let chunk = 64 * 1024
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + start, chunk) }
            if count < 0, errno == EINTR { continue }
            if count < 0 {
                let code = errno
                buffer.removeSubrange(start...)
                throw ConnectionLost(reason: Self.reason(code))
            }
            buffer.removeSubrange((start + count)...)
            if count == 0 { closedByDaemon = true }
            return
        }
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// The connection to the daemon failed after it was made (reset, or closed under a write).
public struct ConnectionLost: Error, CustomStringConvertible {
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }
    public var description: String { reason }
}
