import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The HTTP/1.1 server: one task per accepted connection, requests on a connection answered in
/// order, persistent connections kept open (every response carries `Content-Length`).
struct ReplayServer: Service, CustomStringConvertible {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    private let listener: NIOAsyncChannel<Connection, Never>
    private let endpoint: WeatherEndpoint

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
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        return ReplayServer(listener: listener, endpoint: endpoint)
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
    }

    private func serve(_ connection: Connection) async {
        let peer = connection.channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
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
                        let response = await endpoint.respond(method: request.method.rawValue, target: target)
                        try await write(response, for: request, to: outbound)
                        let elapsed = (ContinuousClock.now - started).components
                        let milliseconds = elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
                        logLine(
                            "\(peer) \"\(request.method.rawValue) \(target.redacted)\" "
                                + "\(response.status) \(response.body.utf8.count) \(milliseconds)ms"
                        )
                        if !request.isKeepAlive { return }
                    }
                }
            }
        } catch is CancellationError {
            // Shutting down.
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
        headers.add(name: "Content-Length", value: String(response.body.utf8.count))
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
            try await outbound.write(.body(.byteBuffer(ByteBuffer(string: response.body))))
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
