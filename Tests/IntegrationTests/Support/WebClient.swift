import Foundation
import WeatherCore

@testable import TestSupport

/// One HTTP/1.1 answer, as read off the wire.
struct HTTPAnswer: Sendable {
    var status: Int
    /// Header names lowercased.
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Sends one request over a connection of its own and reads the answer (`Connection: close`).
/// `host` is the `Host` header (default: `127.0.0.1:PORT`); nil sends none.
func httpRequest(
    port: Int, _ path: String, method: String = "GET", host: String?? = .none, headers: [String: String] = [:]
) async throws -> HTTPAnswer {
    let socket = try RawSocket(tcpPort: port)
    var lines = ["\(method) \(path) HTTP/1.1"]
    switch host {
    case .none: lines.append("Host: 127.0.0.1:\(port)")
    case .some(.some(let value)): lines.append("Host: \(value)")
    case .some(.none): break
    }
    lines += headers.map { "\($0.key): \($0.value)" }
    lines.append("Connection: close")
    try socket.send(bytes: Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
    let head = try await socket.readHTTPHead()
    let length = Int(head.headers["content-length"] ?? "0") ?? 0
    let body =
        method == "HEAD"
        ? []
        : try await socket.read(what: "an HTTP body of \(length) bytes") { buffer, _ in
            buffer.count >= length ? (Array(buffer.prefix(length)), length) : nil
        } ?? []
    return HTTPAnswer(status: head.status, headers: head.headers, body: body)
}

extension RawSocket {
    /// The status and headers of an HTTP answer (the bytes after it stay buffered).
    func readHTTPHead() async throws -> (status: Int, headers: [String: String]) {
        let head = try await read(what: "an HTTP answer's head") { buffer, _ -> (String, Int)? in
            let end: [UInt8] = Array("\r\n\r\n".utf8)
            guard buffer.count >= 4, let index = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<($0 + 4)]) == end }) else {
                return nil
            }
            return (String(decoding: buffer[..<index], as: UTF8.self), index + 4)
        }
        guard let head else { throw ChildProcessError(message: "the server closed before answering") }
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw ChildProcessError(message: "not an HTTP answer: \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }
}

/// A WebSocket client over a plain TCP socket: it masks what it sends, as a browser does, and can
/// send what a browser would not (fragments, oversized or binary messages).
final class WebSocketClient: Sendable {
    struct Frame: Sendable {
        var fin: Bool
        var opcode: UInt8
        var payload: [UInt8]

        var text: String { String(decoding: payload, as: UTF8.self) }
        /// The status code of a close frame.
        var closeCode: Int? { opcode == 8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil }
    }

    /// The upgrade was refused: the HTTP status.
    struct Refused: Error, CustomStringConvertible {
        var status: Int
        var description: String { "WebSocket upgrade refused with HTTP \(status)" }
    }

    let socket: RawSocket

    private init(socket: RawSocket) {
        self.socket = socket
    }

    /// Upgrades `GET /ws`; throws `Refused` with the status when the server does not switch protocols.
    static func connect(port: Int, host: String? = nil, origin: String? = nil) async throws -> WebSocketClient {
        let socket = try RawSocket(tcpPort: port)
        var lines = [
            "GET /ws HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
        ]
        if let origin { lines.append("Origin: \(origin)") }
        try socket.send(bytes: Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        let head = try await socket.readHTTPHead()
        guard head.status == 101 else { throw Refused(status: head.status) }
        return WebSocketClient(socket: socket)
    }

    /// Sends one frame, masked.
    func send(opcode: UInt8 = 1, fin: Bool = true, _ payload: [UInt8]) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xff) }
        }
        let mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try socket.send(bytes: frame)
    }

    /// Sends a text message in one frame.
    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// The next frame from the server; nil when it closed the connection.
    func receive(timeout: Duration = safetyDeadline) async throws -> Frame? {
        try await socket.read(timeout: timeout, what: "a WebSocket frame") { buffer, _ -> (Frame, Int)? in
            guard buffer.count >= 2 else { return nil }
            var length = Int(buffer[1] & 0x7f)
            var offset = 2
            if length == 126 {
                guard buffer.count >= 4 else { return nil }
                length = Int(buffer[2]) << 8 | Int(buffer[3])
                offset = 4
            } else if length == 127 {
                guard buffer.count >= 10 else { return nil }
                length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                offset = 10
            }
            guard buffer.count >= offset + length else { return nil }
            let frame = Frame(fin: buffer[0] & 0x80 != 0, opcode: buffer[0] & 0x0f, payload: Array(buffer[offset..<(offset + length)]))
            return (frame, offset + length)
        }
    }

    /// The next JSON-RPC message (a text frame), skipping pings and pongs.
    func receiveMessage(timeout: Duration = safetyDeadline) async throws -> JSONValue {
        while let frame = try await receive(timeout: timeout) {
            if frame.opcode == 1 { return try JSONValue.parse(frame.payload) }
            if frame.opcode == 8 { throw ChildProcessError(message: "closed by the server with \(frame.closeCode ?? 0)") }
        }
        throw ChildProcessError(message: "the server closed the connection")
    }

    /// Sends a request and returns the first message with its id (notifications before it are skipped).
    func call(_ id: Int, _ method: String, _ params: JSONObject = [:]) async throws -> JSONValue {
        try send(RPCMessage.request(id: id, method: method, params: params))
        while true {
            let message = try await receiveMessage()
            if message["id"] == .integer(Int64(id)) { return message }
        }
    }
}
