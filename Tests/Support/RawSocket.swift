import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A plain Unix domain socket client, for what `DaemonConnection` would hide: never reading,
/// reading lines with a deadline, seeing the exact bytes. Blocking calls run on their own thread.
final class RawSocket: Sendable {
    let fd: Int32
    private let buffer = Mutex<[UInt8]>([])

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError(message: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw ChildProcessError(message: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ChildProcessError(message: "connect to \(path): \(reason)")
        }
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
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ChildProcessError(message: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// The next line (without its newline), or nil at end of file. Throws `TimeoutError` when no
    /// complete line arrived within `timeout`.
    func readLine(timeout: Duration = .seconds(10)) async throws -> String? {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(with: Result { try blockingReadLine(timeout: timeout) })
            }
        }
    }

    private func blockingReadLine(timeout: Duration) throws -> String? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let line = buffer.withLock { buffer -> String? in
                guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                defer { buffer.removeSubrange(...newline) }
                return String(decoding: buffer[..<newline], as: UTF8.self)
            }
            if let line { return line }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw TimeoutError(what: "a line from the server", timeout: timeout) }
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
                let rest = buffer.withLock { buffer -> String? in
                    defer { buffer.removeAll() }
                    return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self)
                }
                return rest
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ChildProcessError(message: "recv: \(String(cString: strerror(errno)))")
            }
            buffer.withLock { $0 += chunk[..<n] }
        }
    }
}
