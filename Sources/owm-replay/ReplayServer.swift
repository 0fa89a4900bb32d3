import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The HTTP/1.1 server: one task per accepted connection, requests on a connection answered in
/// order, persistent connections kept open (every response carries `Content-Length`, but a huge
/// body sent chunked). A request
/// hanging on a fault ends when its client goes away or the server stops; a dripped or huge body
/// is written piece by piece, each write waiting until the connection can take it.
struct ReplayServer: Service, CustomStringConvertible {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    private let listener: NIOAsyncChannel<Connection, Never>
    private let endpoint: WeatherEndpoint
    private let unserved: UnservedConnections

    var description: String { "ReplayServer(\(localAddress.map { "\($0)" } ?? "unbound"))" }

    /// The address actually bound (its port is the real one when asked for port 0).
    var localAddress: SocketAddress? { listener.channel.localAddress }

    /// Binds the listening socket; connections are served by `run()`.
    static func bind(
        host: String,
        port: Int,
        endpoint: WeatherEndpoint,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> ReplayServer {
        let unserved = UnservedConnections()
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)  // IPPROTO_TCP; .socketOption would set SOL_SOCKET (SO_DEBUG)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    return unserved.add(try Connection(wrappingChannelSynchronously: channel))
                }
            }
        return ReplayServer(listener: listener, endpoint: endpoint, unserved: unserved)
    }

    /// Accepts and serves connections until graceful shutdown (or cancellation), which closes the
    /// listener and every open connection.
    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { group in
                    try await listener.executeThenClose { inbound in
                        for try await connection in inbound {
                            endpoint.stats.recordConnection()
                            group.addTask { await serve(connection) }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // Shutting down.
        }
        // Connections accepted but not taken from the listener when it closed: each must be
        // finished and closed, not dropped (NIO traps on an async channel's writer never finished).
        for connection in unserved.removeAll() {
            try? await connection.executeThenClose { _, _ in }
        }
    }

    private func serve(_ connection: Connection) async {
        unserved.remove(connection)
        let peer = connection.channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
        let clientGone = Gate()
        connection.channel.closeFuture.whenComplete { _ in clientGone.open() }
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead):
                        head = requestHead
                    case .body:
                        break
                    case .end:
                        guard let request = head else { continue }
                        head = nil
                        let started = ContinuousClock.now
                        let target = RequestTarget(request.uri)
                        let response = await endpoint.respond(
                            method: request.method.rawValue, target: target, clientGone: clientGone)
                        func milliseconds() -> Int64 {
                            let elapsed = (ContinuousClock.now - started).components
                            return elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
                        }
                        if response.delivery == .abandoned {
                            logLine("\(peer) \"\(request.method.rawValue) \(target.redacted)\" abandoned \(milliseconds())ms")
                            return
                        }
                        try await write(response, for: request, to: outbound)
                        logLine(
                            "\(peer) \"\(request.method.rawValue) \(target.redacted)\" "
                                + "\(response.status) \(response.contentLength) \(milliseconds())ms"
                        )
                        if !request.isKeepAlive { return }
                    }
                }
            }
        } catch is CancellationError {
            // Shutting down.
        } catch  where clientGone.isOpen {
            logLine("\(peer) went away")
        } catch {
            logLine("\(peer) connection error: \(error)")
        }
    }

    private func write(
        _ response: ReplayResponse,
        for request: HTTPRequestHead,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Server", value: "openresty")
        headers.add(name: "Date", value: httpDate(Date()))
        headers.add(name: "Content-Type", value: response.contentType)
        if case .filler(_, chunked: true) = response.delivery {
            // No length: NIO sends the body chunked (HTTP/1.1) or until the connection closes (1.0).
        } else {
            headers.add(name: "Content-Length", value: String(response.contentLength))
        }
        headers.add(name: "Connection", value: request.isKeepAlive ? "keep-alive" : "close")
        headers.add(name: "Access-Control-Allow-Origin", value: "*")
        for header in response.extraHeaders {
            headers.add(name: header.name, value: header.value)
        }
        let head = HTTPResponseHead(
            version: request.version,
            status: HTTPResponseStatus(statusCode: response.status),
            headers: headers
        )
        try await outbound.write(.head(head))
        if request.method != .HEAD {
            switch response.delivery {
            case .whole, .abandoned:
                try await outbound.write(.body(.byteBuffer(ByteBuffer(string: response.body))))
            case .drip(let rate):
                let bytes = Array(response.body.utf8)
                var offset = 0
                while offset < bytes.count {
                    if offset > 0 { try await Task.sleep(for: .seconds(1)) }
                    let end = min(offset + rate, bytes.count)
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: bytes[offset..<end]))))
                    offset = end
                }
            case .filler(let count, _):
                // {"cod":200,"filler":"xxx…"}: exactly `count` bytes, 64 KiB at a time.
                let head = ByteBuffer(string: #"{"cod":200,"filler":""#)
                let tail = ByteBuffer(string: #""}"#)
                var remaining = count - head.readableBytes - tail.readableBytes
                let piece = ByteBuffer(repeating: UInt8(ascii: "x"), count: min(64 * 1024, max(remaining, 0)))
                try await outbound.write(.body(.byteBuffer(head)))
                while remaining > 0 {
                    let length = min(piece.readableBytes, remaining)
                    try await outbound.write(.body(.byteBuffer(piece.getSlice(at: piece.readerIndex, length: length)!)))
                    remaining -= length
                }
                try await outbound.write(.body(.byteBuffer(tail)))
            }
        }
        try await outbound.write(.end(nil))
    }
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for the `Date` header.
private func httpDate(_ date: Date) -> String {
    var time = time_t(date.timeIntervalSince1970)
    var parts = tm()
    gmtime_r(&time, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Writes one line to stderr (a single unbuffered write, so concurrent lines never interleave).
func logLine(_ message: String) {
    FileHandle.standardError.write(Data(("owm-replay: " + message + "\n").utf8))
}

/// The connections accepted on the listener that no task serves yet.
final class UnservedConnections: Sendable {
    private let connections = Mutex<[ObjectIdentifier: ReplayServer.Connection]>([:])

    func add(_ connection: ReplayServer.Connection) -> ReplayServer.Connection {
        connections.withLock { $0[ObjectIdentifier(connection.channel)] = connection }
        return connection
    }

    func remove(_ connection: ReplayServer.Connection) {
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(connection.channel)) }
    }

    func removeAll() -> [ReplayServer.Connection] {
        connections.withLock { connections in
            defer { connections.removeAll() }
            return Array(connections.values)
        }
    }
}
