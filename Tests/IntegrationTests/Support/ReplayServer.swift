import Foundation
import WeatherCore
@testable import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// An `owm-replay` process serving the recorded OpenWeatherMap answers on 127.0.0.1 (a free port).
final class ReplayServer: Sendable {
    let process: ChildProcess
    let port: Int

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts owm-replay with `arguments` (e.g. `--delay Tokyo=300`, `--fail Paris=500`) and waits
    /// for its `listening on` line.
    /// With `unprivileged`, it runs as `nobody` with no capabilities (through setpriv), as a user
    /// or a container would run it.
    static func start(_ arguments: [String] = [], unprivileged: Bool = false) async throws -> ReplayServer {
        let replay = try TestEnvironment.binary("owm-replay")
        let command = ["--port", "0", "--data", TestEnvironment.demoData] + arguments
        let process = unprivileged
            ? try ChildProcess(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", replay] + command,
                environment: TestEnvironment.childEnvironment(), name: "owm-replay")
            : try ChildProcess(replay, command, environment: TestEnvironment.childEnvironment())
        let line = try await process.waitForLine(containing: "owm-replay listening on http://", on: \.stdout)
        guard let portText = line.split(separator: ":").last, let port = Int(portText.trimmingCharacters(in: .whitespaces)) else {
            throw ChildProcessError(message: "owm-replay printed no port: \(line)")
        }
        return ReplayServer(process: process, port: port)
    }

    private init(process: ChildProcess, port: Int) {
        self.process = process
        self.port = port
    }

    /// `GET /_stats`: `{"requests":N,"connections":M,"by_query":{...}}`. The GET itself is one more
    /// connection (but not a request).
    func stats() async throws -> ReplayStats {
        let body = try await httpGet(port: port, path: "/_stats")
        return ReplayStats(json: try JSONValue.parse(Array(body.utf8)))
    }
}

struct ReplayStats: Sendable, CustomStringConvertible {
    var json: JSONValue
    var requests: Int { json["requests"]?.intValue ?? -1 }
    var connections: Int { json["connections"]?.intValue ?? -1 }
    /// Requests for one normalized query, e.g. `q=london`.
    func requests(for query: String) -> Int { json["by_query"]?[query]?.intValue ?? 0 }
    var description: String { json.serialized }
}

/// A minimal HTTP/1.0 GET over a TCP socket to 127.0.0.1; returns the body of a 200 answer. The
/// blocking calls run on a thread of their own, not on the test's executor.
func httpGet(port: Int, path: String) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try blockingHTTPGet(port: port, path: path) })
        }
    }
}

private func blockingHTTPGet(port: Int, path: String) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ChildProcessError(message: "socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw ChildProcessError(message: "connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
    let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    var sent = 0
    while sent < request.count {
        let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else { throw ChildProcessError(message: "send: \(String(cString: strerror(errno)))") }
        sent += n
    }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { break }
        guard n > 0 else { throw ChildProcessError(message: "recv: \(String(cString: strerror(errno)))") }
        response += buffer[..<n]
    }
    let text = String(decoding: response, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { throw ChildProcessError(message: "not an HTTP answer: \(text)") }
    let statusLine = text[..<split.lowerBound].prefix { $0 != "\r" }
    guard statusLine.contains(" 200") else { throw ChildProcessError(message: "GET \(path): \(statusLine)") }
    return String(text[split.upperBound...])
}
