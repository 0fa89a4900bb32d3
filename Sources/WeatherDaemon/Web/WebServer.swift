import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import ServiceLifecycle
import Synchronization
import WeatherCore
import WeatherSessions

/// The web listener (`[web]`): the map page and its assets, the JSON routes, and `/ws`, a WebSocket
/// carrying the socket protocol through the same `ClientSession` as the Unix socket.
///
/// Each connection runs in a child task that never throws; SIGTERM cancels them all.
public final class WebServer: Service {
    /// What a reload can change.
    struct Live: Sendable {
        var readOnly: Bool
        var maxClients: Int
        var allowedHosts: [String]
        var tileURL: String
        var tileAttribution: String
        /// `owntracks.http`: `POST /owntracks` is served.
        var ownTracks: Bool

        init(_ config: WebConfig, ownTracks: Bool) {
            self.ownTracks = ownTracks
            readOnly = config.readOnly
            maxClients = config.maxClients
            allowedHosts = config.allowedHosts
            tileURL = config.tileURL
            tileAttribution = config.tileAttribution
        }
    }

    private enum Connection: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case http(NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>)
    }

    /// The settings connections read as they go (a reload changes them under them).
    private final class Settings: Sendable {
        let live: Mutex<Live>
        /// The accepted hosts, once the port is known.
        let policy = Mutex<WebHostPolicy?>(nil)

        init(_ live: Live) { self.live = Mutex(live) }
    }

    private let listen: ListenAddress
    private let settings: Settings
    private let routes: WebRoutes
    private let ownTracksRoute: OwnTracksRoute
    private let handler: RequestHandler
    private let group: any EventLoopGroup
    private let logger: Logger
    private let onListening: @Sendable (ListenAddress) -> Void
    private let webSocketClients = ClientCount()

    /// - Parameter onListening: called with the bound address (the port chosen when `listen` asks for 0).
    public init(
        config: WebConfig, listen: ListenAddress, handler: RequestHandler, engine: SearchEngine, assets: WebAssets,
        airQualityScale: AirQualityScale = .european, metrics: MetricsExporter? = nil, ownTracks: OwnTracksService? = nil,
        ownTracksHTTP: Bool = false,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger,
        onListening: @escaping @Sendable (ListenAddress) -> Void = { _ in }
    ) {
        self.listen = listen
        self.ownTracksRoute = OwnTracksRoute(service: ownTracks)
        let settings = Settings(Live(config, ownTracks: ownTracksHTTP))
        self.settings = settings
        self.handler = handler
        self.group = group
        self.logger = logger
        self.onListening = onListening
        let clients = webSocketClients
        var exposition: (@Sendable () async -> String)?
        if let metrics {
            exposition = { await metrics.exposition(webClients: clients.value.load(ordering: .relaxed)) }
        }
        self.routes = WebRoutes(
            engine: engine, assets: assets, metrics: exposition,
            pageConfig: {
                settings.live.withLock { live in
                    .object([
                        "tile_url": .string(live.tileURL), "tile_attribution": .string(live.tileAttribution),
                        "read_only": .bool(live.readOnly), "version": .string(WeatherdVersion.current),
                        "air_quality_scale": .string(airQualityScale.rawValue),
                    ])
                }
            })
    }

    /// WebSocket clients connected now.
    public var clientCount: Int { webSocketClients.value.load(ordering: .relaxed) }

    public func run() async throws {
        let server = try await bind()
        let port = server.channel.localAddress?.port ?? listen.port
        let bound = ListenAddress(host: listen.host, port: port)
        settings.policy.withLock {
            $0 = WebHostPolicy(listen: bound, boundPort: port, allowedHosts: settings.live.withLock(\.allowedHosts))
        }
        logger.notice("map page at http://\(bound)/")
        if !bound.isLoopback {
            logger.warning(
                "web listener on \(bound), beyond loopback: anyone who can reach it can use the map (web.read_only = \(settings.live.withLock(\.readOnly)))"
            )
        }
        onListening(bound)
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { connections in
                    try await server.executeThenClose { inbound in
                        for try await negotiated in inbound {
                            connections.addTask { await self.serve(negotiated) }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // Shutting down.
        }
        logger.info("web listener stopped")
    }

    private func bind() async throws -> NIOAsyncChannel<EventLoopFuture<Connection>, Never> {
        do {
            return try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 128)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: listen.host, port: listen.port) { channel in
                    channel.eventLoop.makeCompletedFuture { try self.configure(channel) }
                }
        } catch {
            throw DaemonError(message: "cannot listen on \(listen) (web.listen): \(error)")
        }
    }

    /// HTTP/1.1 with an upgrade to a WebSocket on `/ws` when Host and Origin are accepted.
    private func configure(_ channel: any Channel) throws -> EventLoopFuture<Connection> {
        let upgrader = NIOTypedWebSocketServerUpgrader<Connection>(
            maxFrameSize: WebSocketConnection.maxMessageBytes,
            shouldUpgrade: { [settings] channel, head in
                let accepted =
                    head.uri == "/ws"
                    && settings.policy.withLock { policy in
                        policy.map {
                            $0.accepts(host: head.headers.first(name: "host")) && $0.accepts(origin: head.headers.first(name: "origin"))
                        } ?? false
                    }
                // Refused here, the request goes on as plain HTTP and gets its 403.
                return channel.eventLoop.makeSucceededFuture(accepted ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    .webSocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                }
            })
        let configuration = NIOTypedHTTPServerUpgradeConfiguration<Connection>(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HTTPResponsePartEncoder())
                    return .http(
                        try NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>(
                            wrappingChannelSynchronously: channel))
                }
            })
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
            configuration: .init(upgradeConfiguration: configuration))
    }

    private func serve(_ negotiated: EventLoopFuture<Connection>) async {
        do {
            switch try await negotiated.get() {
            case .webSocket(let channel): await serveWebSocket(channel)
            case .http(let channel): try await serveHTTP(channel)
            }
        } catch {
            logger.debug("web connection ended: \(error)")
        }
    }

    // MARK: WebSocket

    private func serveWebSocket(_ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) async {
        let active = webSocketClients.value.wrappingAdd(1, ordering: .relaxed).newValue
        defer { webSocketClients.value.wrappingSubtract(1, ordering: .relaxed) }
        let limit = settings.live.withLock(\.maxClients)
        let closing = ClosingFlag()
        if active > limit {
            logger.warning("refusing a WebSocket client: \(limit) clients connected (web.max_clients)")
            let busy = RPCMessage.error(id: .null, WeatherError(.busy, "busy: \(limit) clients connected; try again later"))
            try? await channel.executeThenClose { _, outbound in
                try await outbound.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: busy.serialized)))
                await WebSocketConnection.close(outbound, .init(codeNumber: 1013), closing: closing)  // try again later
            }
            return
        }
        let session = ClientSession(handler: handler, access: { [settings] in settings.live.withLock(\.readOnly) ? .readOnly : .web })
        channel.channel.closeFuture.whenComplete { _ in session.hangUp() }
        // As on the Unix socket, the session runs on its connection's event loop.
        await withTaskExecutorPreference(EventLoopTaskExecutor(channel.channel.eventLoop)) {
            do {
                try await channel.executeThenClose { inbound, outbound in
                    let inputs = WebSocketConnection.Inputs(inbound: inbound, outbound: outbound, closing: closing)
                    await session.run(inputs) { line in
                        guard !closing.isSet else { throw WebSocketClosed() }
                        try await outbound.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: line)))
                    }
                    await WebSocketConnection.close(outbound, .normalClosure, closing: closing)
                }
            } catch {
                logger.debug("WebSocket client ended: \(error)")
            }
        }
    }

    // MARK: HTTP

    private func serveHTTP(_ channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>) async throws {
        try await channel.executeThenClose { inbound, outbound in
            var request: HTTPRequestHead?
            // The body of a POST /owntracks (no other route takes one), nil once over the limit.
            var body: [UInt8]? = []
            for try await part in inbound {
                switch part {
                case .head(let head):
                    request = head
                    body = []
                case .body(let chunk):
                    guard let head = request, OwnTracksRoute.handles(head), body != nil else { break }
                    if (body?.count ?? 0) + chunk.readableBytes > OwnTracksPayload.maxBytes {
                        body = nil
                    } else {
                        body?.append(contentsOf: chunk.readableBytesView)
                    }
                case .end:
                    guard let head = request else {
                        // NIO keeps the head of a request that asked for an upgrade: one that ends
                        // here without a head is an upgrade that was refused (its Host, Origin or
                        // path is not accepted).
                        let refused = WebResponse.text(
                            .forbidden, "forbidden: WebSocket upgrade refused (Host, Origin or path not accepted)\n")
                        try await outbound.write(
                            contentsOf: refused.parts(for: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/ws"), keepAlive: false))
                        return
                    }
                    request = nil
                    let accepted = settings.policy.withLock { $0?.accepts(host: head.headers.first(name: "host")) ?? false }
                    let response: WebResponse
                    if !accepted {
                        response = WebResponse.text(.forbidden, "forbidden: this server does not answer for that Host\n")
                    } else if OwnTracksRoute.handles(head) {
                        let live = settings.live.withLock { $0 }
                        let originAccepted = settings.policy.withLock { $0?.accepts(origin: head.headers.first(name: "origin")) ?? false }
                        response = await ownTracksRoute.respond(
                            to: head, body: body, enabled: live.ownTracks, readOnly: live.readOnly, originAccepted: originAccepted)
                    } else {
                        response = await routes.respond(to: head)
                    }
                    let keepAlive = head.isKeepAlive && response.status != .forbidden && response.status != .payloadTooLarge
                    try await outbound.write(contentsOf: response.parts(for: head, keepAlive: keepAlive))
                    if !keepAlive { return }
                }
            }
        }
    }
}

extension WebServer: Reconfigurable {
    /// Every `[web]` key but `listen` applies at once, to connections already open too.
    public func apply(_ change: ConfigChange) {
        guard change.changed(table: "web") || change.changed("owntracks.http") else { return }
        let new = Live(change.new.web, ownTracks: change.new.ownTracks.http)
        settings.live.withLock { $0 = new }
        settings.policy.withLock { policy in
            guard let old = policy else { return }
            policy = WebHostPolicy(
                listen: ListenAddress(host: listen.host, port: old.port), boundPort: old.port, allowedHosts: new.allowedHosts)
        }
    }
}

/// WebSocket clients connected now (shared with the metrics route).
final class ClientCount: Sendable {
    let value = Atomic<Int>(0)
}

/// Writes `HTTPPart<HTTPResponseHead, ByteBuffer>` as the server pipeline's response parts.
final class HTTPResponsePartEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPPart<HTTPResponseHead, ByteBuffer>
    typealias OutboundOut = HTTPServerResponsePart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head): context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body(let buffer): context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: promise)
        case .end(let trailers): context.write(wrapOutboundOut(.end(trailers)), promise: promise)
        }
    }
}
