import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A plain Unix domain socket (or TCP) client, for what `DaemonConnection` would hide: never reading,
/// reading lines with a deadline, seeing the exact bytes. Blocking calls run on their own thread.
final class RawSocket: Sendable {
    let fd: Int32
    private let buffer = Mutex<[UInt8]>([])

    init(path: String) throws {
        fd = try connectedSocket(path: path)
    }

    /// Connects over TCP to `port` on 127.0.0.1.
    init(tcpPort port: Int) throws {
        fd = try connectedSocket(loopbackPort: port)
    }

    deinit {
        close(fd)
    }

    /// Closes both directions (the descriptor itself is closed when the object goes away).
    func shutdown() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Closes the sending direction only (the peer reads end of file; replies still arrive).
    func closeWriting() {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Writes `line` and a newline.
    func send(_ line: String) throws {
        try send(bytes: Array((line + "\n").utf8))
    }

    /// Writes `bytes`, all of them.
    func send(bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ChildProcessError(message: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// The next line (without its newline), or nil at end of file. Throws `TimeoutError` when no
    /// complete line arrived within `timeout`.
    func readLine(timeout: Duration = safetyDeadline) async throws -> String? {
        try await read(timeout: timeout, what: "a line from the server") { buffer, atEnd in
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                return (String(decoding: buffer[..<newline], as: UTF8.self), newline + 1)
            }
            // A last line without its newline.
            return atEnd && !buffer.isEmpty ? (String(decoding: buffer, as: UTF8.self), buffer.count) : nil
        }
    }

    /// Reads until `take` finds what it needs at the start of the bytes received so far: it returns
    /// the value and how many bytes it used (they are consumed), or nil to wait for more. `atEnd`
    /// says the peer closed: nothing more will come. Returns nil at end of file when `take` found
    /// nothing; throws `TimeoutError` after `timeout`. Blocking calls run on a thread of their own.
    func read<Value: Sendable>(
        timeout: Duration = safetyDeadline, what: String,
        _ take: @escaping @Sendable (_ buffer: [UInt8], _ atEnd: Bool) -> (Value, Int)?
    ) async throws -> Value? {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(with: Result { try blockingRead(timeout: timeout, what: what, take) })
            }
        }
    }

    private func blockingRead<Value>(timeout: Duration, what: String, _ take: ([UInt8], Bool) -> (Value, Int)?) throws -> Value? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var atEnd = false
        while true {
            let found = buffer.withLock { buffer -> Value? in
                guard let (value, used) = take(buffer, atEnd) else { return nil }
                buffer.removeFirst(used)
                return value
            }
            if let found { return found }
            if atEnd { return nil }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw TimeoutError(what: what, timeout: timeout) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            var n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            // A peer that closed with bytes of ours unread resets the connection (after what it
            // sent was read): that is its end of file too.
            if n < 0 && errno == ECONNRESET { n = 0 }
            if n == 0 {
                atEnd = true
                continue
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ChildProcessError(message: "recv: \(String(cString: strerror(errno)))")
            }
            buffer.withLock { $0 += chunk[..<n] }
        }
    }
}

// A test's socket object takes its descriptor from these, connected, or not at all: an initializer
// that closed a socket it had already stored and then threw would close it a second time in
// `deinit` (a class whose properties are all set runs it), by then perhaps another test's.

/// A close-on-exec stream socket connected to the Unix socket at `path`.
func connectedSocket(path: String) throws -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        throw ChildProcessError(message: "socket path too long: \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return try connectedSocket(AF_UNIX, to: address, describedAs: path)
}

/// A close-on-exec TCP socket connected to `port` on 127.0.0.1.
func connectedSocket(loopbackPort port: Int) throws -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
    return try connectedSocket(AF_INET, to: address, describedAs: "127.0.0.1:\(port)")
}

private func connectedSocket<Address>(_ family: Int32, to address: Address, describedAs name: String) throws -> Int32 {
    let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw ChildProcessError(message: "socket: \(String(cString: strerror(errno)))") }
    var address = address
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
    }
    guard connected == 0 else {
        let reason = String(cString: strerror(errno))
        close(fd)
        throw ChildProcessError(message: "connect to \(name): \(reason)")
    }
    return fd
}

/// Leaves a socket file at `path` that nobody listens on (a daemon killed with SIGKILL leaves one).
func leaveStaleSocketFile(at path: String) throws {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw ChildProcessError(message: "socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8)) }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else { throw ChildProcessError(message: "bind \(path): \(String(cString: strerror(errno)))") }
}
