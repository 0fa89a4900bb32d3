import Foundation
import Synchronization

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

struct ServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }

    static func errno(_ what: String) -> ServerError {
        ServerError(message: "\(what): \(String(cString: strerror(Glibc.errno)))")
    }
}

/// A stand-in for weatherd: a Unix stream socket in a fresh temporary directory that accepts one
/// client and plays `script` with it on a thread of its own (plain blocking calls), then closes the
/// connection. `finished` gives what the script returned or threw. Nothing it waits for has a
/// deadline (a busy machine only makes the client later): when the server goes away, its waits end.
final class ScriptedServer: Sendable {
    /// One accepted client, as the script sees it.
    final class Client {
        fileprivate let fd: Int32
        private var buffer: [UInt8] = []

        fileprivate init(fd: Int32) {
            self.fd = fd
        }

        /// The next line the client sent (without its newline), or nil at end of file.
        func readLine() throws -> String? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    defer { buffer.removeSubrange(...newline) }
                    return String(decoding: buffer[..<newline], as: UTF8.self)
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 { throw ServerError.errno("recv") }
                if n == 0 { return nil }
                buffer += chunk[..<n]
            }
        }

        /// Sends `text` as it is (add the newlines).
        func write(_ text: String) throws {
            let bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw ServerError.errno("send") }
                sent += n
            }
        }
    }

    let path: String
    private let directory: String
    private let listener: Int32
    private let outcome: Observed<Result<[String], ServerError>?>
    /// The accepted client's descriptor while the script runs: shut down when the server goes away.
    private let connection: Observed<Int32?>
    /// Sent a byte when the server goes away: ends the wait for a client.
    private let wakeWrite: Int32

    /// Listens on `<new temporary directory>/weatherd.sock` and serves one client with `script`,
    /// which returns what it wants the test to see (e.g. the lines it read).
    init(_ script: @escaping @Sendable (Client) throws -> [String]) throws {
        var template = Array("/tmp/wc-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ServerError.errno("mkdtemp")
        }
        directory = String(cString: made)
        path = directory + "/weatherd.sock"
        listener = try Self.listen(on: path)
        let outcome = Observed<Result<[String], ServerError>?>(nil)
        self.outcome = outcome
        let listener = self.listener
        // A socket pair, not a pipe: a byte sent after the thread closed its end fails with EPIPE
        // (MSG_NOSIGNAL) instead of raising SIGPIPE.
        var wake: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &wake) == 0 else {
            throw ServerError.errno("socketpair")
        }
        wakeWrite = wake[1]
        let wakeRead = wake[0]
        let connection = Observed<Int32?>(nil)
        self.connection = connection
        // The thread owns the listener and the client's descriptor: it closes them, the client's
        // under `connection`'s lock, so `deinit` never touches a number closed meanwhile.
        Thread.detachNewThread {
            defer { close(wakeRead) }
            let result: Result<[String], ServerError>
            var pollers = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            while poll(&pollers, 2, -1) < 0 && errno == EINTR {}
            if pollers[1].revents != 0 {
                close(listener)
                result = .failure(ServerError(message: "the server went away before a client connected"))
            } else {
                let fd = accept(listener, nil, nil)
                let refused = fd < 0 ? ServerError.errno("accept") : nil
                close(listener)
                if let refused {
                    result = .failure(refused)
                } else {
                    connection.update { $0 = fd }
                    result = Result { try script(Client(fd: fd)) }.mapError { $0 as? ServerError ?? ServerError(message: "\($0)") }
                    connection.update {
                        $0 = nil
                        close(fd)
                    }
                }
            }
            outcome.update { $0 = result }
        }
    }

    deinit {
        // Ends the script's blocking calls on its client, and the wait for one.
        connection.update { fd in
            if let fd { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
        var byte: UInt8 = 1
        _ = send(wakeWrite, &byte, 1, Int32(MSG_NOSIGNAL))
        close(wakeWrite)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What the script returned, once it has ended (and the connection is closed).
    func finished(timeout: Duration? = nil) async throws -> [String] {
        try await outcome.wait(for: "the server's script to end", timeout: timeout) { $0 }.get()
    }

    private static func listen(on path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerError.errno("socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 8) == 0 else {
            let error = ServerError.errno("listen on \(path)")
            close(fd)
            throw error
        }
        return fd
    }
}
