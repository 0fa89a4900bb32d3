import Foundation
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// owm-replay's fault control (`/_faults`, see docs/owm-replay.md) for the reliability tests.
extension ReplayServer {
    /// Starts owm-replay on `port` (a later `--port` wins over the `--port 0` of `start`).
    static func start(port: Int, _ arguments: [String] = []) async throws -> ReplayServer {
        let replay = try await start(["--port", String(port)] + arguments)
        guard replay.port == port else {
            throw ChildProcessError(message: "owm-replay listens on \(replay.port), not on the port asked for, \(port)")
        }
        return replay
    }

    /// `POST /_faults?city=CITY&fault=FAULT&…`: `fault` is a status (`"429"`), `hang`, `not-json`,
    /// `huge` or `drip`; `parameters` e.g. `["retry_after": "2"]`. Returns the list of faults.
    @discardableResult
    func setFault(city: String, _ fault: String, _ parameters: [String: String] = [:]) async throws -> JSONValue {
        let query = ([("city", city), ("fault", fault)] + parameters.sorted { $0.key < $1.key })
            .map { "\($0)=\(percentEncoded($1))" }.joined(separator: "&")
        return try await faultRequest("POST", "/_faults?" + query)
    }

    /// `DELETE /_faults?city=CITY` (nil: every fault). Returns the list of faults left.
    @discardableResult
    func clearFaults(city: String? = nil) async throws -> JSONValue {
        try await faultRequest("DELETE", "/_faults" + (city.map { "?city=" + percentEncoded($0) } ?? ""))
    }

    /// `GET /_faults`: `{"faults":[…],"hanging":N}`.
    func faults() async throws -> JSONValue {
        try await faultRequest("GET", "/_faults")
    }

    /// Waits (polling `/_faults`) until exactly `count` requests hang on a fault; without a
    /// `timeout`, for that alone (the test's time limit ends a hang).
    func waitForHanging(_ count: Int, timeout: Duration? = safetyDeadline) async throws {
        try await poll("\(count) requests hanging at owm-replay", timeout: timeout, { try await faults()["hanging"]?.intValue }) {
            $0 == count
        }
    }

    /// Waits (polling `/_stats`) until `check` accepts the stand-in's request counts; without a
    /// `timeout`, for that alone (the test's time limit ends a hang).
    func waitForStats(_ what: String, timeout: Duration? = safetyDeadline, _ check: (ReplayStats) -> Bool) async throws {
        try await poll(what, timeout: timeout, { try await stats() }, until: check)
    }

    private func poll<Value>(
        _ what: String, timeout: Duration?, _ read: () async throws -> Value, until check: (Value) -> Bool
    ) async throws {
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        while true {
            let value = try await read()
            if check(value) { return }
            if let deadline, let timeout, ContinuousClock.now >= deadline {
                throw TimeoutError(what: "\(what) (now \(value))", timeout: timeout)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func faultRequest(_ method: String, _ target: String) async throws -> JSONValue {
        let (status, body) = try await httpRequest(method, port: port, target: target)
        guard status == 200 else { throw ChildProcessError(message: "\(method) \(target): HTTP \(status) \(body)") }
        return try JSONValue.parse(Array(body.utf8))
    }
}

private func percentEncoded(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~*"))) ?? text
}

/// One HTTP/1.0 request without a body to 127.0.0.1; returns the status and the body. The
/// blocking calls run on a thread of their own.
func httpRequest(_ method: String, port: Int, target: String) async throws -> (status: Int, body: String) {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try blockingHTTPRequest(method, port: port, target: target) })
        }
    }
}

private func blockingHTTPRequest(_ method: String, port: Int, target: String) throws -> (status: Int, body: String) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
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
    let request = Array("\(method) \(target) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
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
    let parts = statusLine.split(separator: " ")
    guard parts.count >= 2, let status = Int(parts[1]) else { throw ChildProcessError(message: "no status in \(statusLine)") }
    return (status, String(text[split.upperBound...]))
}
