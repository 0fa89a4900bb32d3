import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

@testable import TestSupport

/// An HTTP/1.1 server on 127.0.0.1 (port chosen by the system) for transport tests. Each request
/// is answered as the test's handler decides, and reported on ``requests``.
final class LocalHTTPServer: Sendable {
    /// One request the server received.
    struct Request: Sendable {
        var method: HTTPMethod
        var uri: String
        var headers: HTTPHeaders
    }

    /// How to answer a request.
    enum Reply: Sendable {
        /// Sends a complete response with a `content-length`, keeping the connection alive.
        case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
        /// Never answers; the connection stays open until the server shuts down.
        case never
    }

    /// The port the server listens on.
    let port: Int
    /// Every request, as it arrives (after its end).
    let requests: AsyncStream<Request>

    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let counters: Counters

    /// TCP connections accepted so far.
    var acceptedConnections: Int { counters.value.withLock { $0.accepted } }
    /// Requests received so far.
    var requestCount: Int { counters.value.withLock { $0.requests } }

    /// `http://127.0.0.1:<port>` followed by `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Starts a server answering every request with `handler`'s reply.
    static func start(
        _ handler: @escaping @Sendable (Request) -> Reply
    ) async throws -> LocalHTTPServer {
        let (requests, continuation) = AsyncStream<Request>.makeStream()
        let counters = Counters(continuation: continuation)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    counters.value.withLock { $0.accepted += 1 }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(
                            RequestHandler(counters: counters, handler: handler)
                        )
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else {
                throw ChannelError.unknownLocalAddress
            }
            return LocalHTTPServer(
                port: port, requests: requests, group: group, serverChannel: channel, counters: counters
            )
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// A port on 127.0.0.1 on which nothing listens (it was bound and released again).
    static func closedPort() async throws -> Int {
        let server = try await start { _ in .never }
        let port = server.port
        try await server.shutdown()
        return port
    }

    private init(
        port: Int, requests: AsyncStream<Request>, group: MultiThreadedEventLoopGroup,
        serverChannel: any Channel, counters: Counters
    ) {
        self.port = port
        self.requests = requests
        self.group = group
        self.serverChannel = serverChannel
        self.counters = counters
    }

    /// Stops listening and closes every connection.
    func shutdown() async throws {
        try? await serverChannel.close()
        try await group.shutdownGracefully()
        counters.continuation.finish()
    }

    fileprivate final class Counters: Sendable {
        let value = Mutex<(accepted: Int, requests: Int)>((0, 0))
        let continuation: AsyncStream<Request>.Continuation
        init(continuation: AsyncStream<Request>.Continuation) { self.continuation = continuation }
    }

    private final class RequestHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let counters: Counters
        private let handler: @Sendable (Request) -> Reply
        private var head: HTTPRequestHead?

        init(counters: Counters, handler: @escaping @Sendable (Request) -> Reply) {
            self.counters = counters
            self.handler = handler
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body:
                break
            case .end:
                guard let head else { return }
                self.head = nil
                let request = Request(method: head.method, uri: head.uri, headers: head.headers)
                counters.value.withLock { $0.requests += 1 }
                counters.continuation.yield(request)
                switch handler(request) {
                case .never:
                    break
                case .respond(let status, let headerList, let body):
                    var headers = HTTPHeaders(headerList)
                    headers.replaceOrAdd(name: "content-length", value: String(body.count))
                    let responseHead = HTTPResponseHead(
                        version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers
                    )
                    context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
                    if !body.isEmpty {
                        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
                    }
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                }
            }
        }
    }
}
