import Foundation
import Synchronization
import Testing
import WeatherCore

@testable import TestSupport
@testable import owm_replay

#if canImport(Glibc)
    import Glibc
#endif

/// An owm-replay server running in this process on 127.0.0.1 (a free port), for tests that go
/// through real HTTP. Stop it with `stop()`.
struct RunningReplay: Sendable {
    let endpoint: WeatherEndpoint
    let port: Int
    let task: Task<Void, any Error>

    static func start(_ endpoint: WeatherEndpoint) async throws -> RunningReplay {
        let server = try await ReplayServer.bind(host: "127.0.0.1", port: 0, endpoint: endpoint)
        let port = try #require(server.localAddress?.port)
        return RunningReplay(endpoint: endpoint, port: port, task: Task { try await server.run() })
    }

    /// Cancels the server and waits until it has stopped.
    func stop() async throws {
        task.cancel()
        try await task.value
    }

    func request(_ method: String, _ target: String) async throws -> HTTPReply {
        let client = try HTTPClientConnection(port: port)
        try client.send(method, target)
        return try await client.readReply()
    }

    /// `GET /_faults`, parsed.
    func faults() async throws -> JSONValue {
        try await request("GET", "/_faults").json()
    }

    /// Polls `GET /_faults` until `count` requests hang.
    func waitForHanging(_ count: Int, timeout: Duration = safetyDeadline) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while try await faults()["hanging"]?.intValue != count {
            guard ContinuousClock.now < deadline else {
                throw TimeoutError(what: "\(count) hanging requests", timeout: timeout)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// One HTTP answer as it arrived, with when its body's first and last bytes came.
struct HTTPReply: Sendable {
    var status: Int
    /// Lower-cased names.
    var headers: [String: String]
    var body: [UInt8]
    /// From the request to the first byte of the body, and to the end of the answer.
    var firstBodyByteAfter: Duration?
    var completeAfter: Duration

    var text: String { String(decoding: body, as: UTF8.self) }
    func json() throws -> JSONValue { try JSONValue.parse(body) }
}

/// A TCP connection to 127.0.0.1 that sends one HTTP/1.0 request (the server closes after its
/// answer). Blocking reads run on a thread of their own.
final class HTTPClientConnection: Sendable {
    let fd: Int32
    private let sentAt = Mutex<ContinuousClock.Instant>(.now)

    init(port: Int) throws {
        fd = try connectedSocket(loopbackPort: port)
    }

    deinit {
        Glibc.close(fd)
    }

    func send(_ method: String, _ target: String) throws {
        let bytes = Array("\(method) \(target) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        sentAt.withLock { $0 = .now }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ChildProcessError(message: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Closes both directions: the server sees the client go away.
    func close() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Reads the answer until the server closes the connection.
    func readReply(timeout: Duration = safetyDeadline) async throws -> HTTPReply {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(with: Result { try blockingReadReply(timeout: timeout) })
            }
        }
    }

    private func blockingReadReply(timeout: Duration) throws -> HTTPReply {
        let start = sentAt.withLock { $0 }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var received: [UInt8] = []
        var headEnd: Int?
        var firstBodyByte: Duration?
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw TimeoutError(what: "the end of an HTTP answer", timeout: timeout) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining.components.seconds * 1000 + 1))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n >= 0 else { throw ChildProcessError(message: "recv: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            received += chunk[..<n]
            if headEnd == nil, let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                headEnd = end
            }
            if let headEnd, firstBodyByte == nil, received.count > headEnd {
                firstBodyByte = ContinuousClock.now - start
            }
        }
        guard let headEnd else { throw ChildProcessError(message: "not an HTTP answer: \(String(decoding: received, as: UTF8.self))") }
        let head = String(decoding: received[..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw ChildProcessError(message: "no status line in \(head)")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return HTTPReply(
            status: status, headers: headers, body: Array(received[headEnd...]),
            firstBodyByteAfter: firstBodyByte, completeAfter: ContinuousClock.now - start)
    }
}
