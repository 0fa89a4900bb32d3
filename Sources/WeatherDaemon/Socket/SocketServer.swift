import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import WeatherCore
import WeatherSessions
import WeatherWire

#if canImport(Glibc)
    import Glibc
#endif

/// The socket protocol server: a Unix domain stream socket, one JSON-RPC line per message.
///
/// Each connection runs in its own child task that never throws, so one bad or slow client can
/// never take the server or the other clients down.
public final class SocketServer: Service {
    /// Where and how to listen.
    public struct Settings: Sendable {
        public var path: String
        public var mode: UInt32
        public var maxClients: Int
        /// A listening socket inherited from systemd socket activation; nil to bind `path`.
        public var inheritedSocket: Int32?

        public init(path: String, mode: UInt32, maxClients: Int, inheritedSocket: Int32? = nil) {
            self.path = path
            self.mode = mode
            self.maxClients = maxClients
            self.inheritedSocket = inheritedSocket
        }
    }

    private let settings: Settings
    private let handler: RequestHandler
    private let group: any EventLoopGroup
    private let logger: Logger
    private let onListening: @Sendable () -> Void
    private let activeClients = Atomic<Int>(0)
    private let maxClients: Atomic<Int>
    /// Each event loop's job writing notifications to its connections.
    private let loopWrites = LoopWritesRegistry()

    /// - Parameter onListening: called once the socket accepts connections.
    public init(
        settings: Settings, handler: RequestHandler, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger, onListening: @escaping @Sendable () -> Void = {}
    ) {
        self.settings = settings
        self.maxClients = Atomic(settings.maxClients)
        self.handler = handler
        self.group = group
        self.logger = logger
        self.onListening = onListening
    }

    /// Clients connected now.
    public var clientCount: Int { activeClients.load(ordering: .relaxed) }

    /// Applies a reloaded `socket.mode` and `socket.max_clients` (the path needs a restart).
    public func update(mode: UInt32, maxClients: Int) {
        self.maxClients.store(maxClients, ordering: .relaxed)
        if settings.inheritedSocket == nil, chmod(settings.path, mode_t(mode)) != 0 {
            logger.warning("cannot set mode \(String(mode, radix: 8)) on \(settings.path): \(String(cString: strerror(errno)))")
        }
    }

    public func run() async throws {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            // A client may send its requests and close its side; it still gets its replies.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            // Requests are lines of about a hundred bytes, and each channel keeps its last read
            // buffer for the next read (NIO's pool of receive buffers): 128 bytes to start with,
            // not NIO's 2048; it grows at once for a client that sends more (a full read doubles
            // the next) and shrinks back. A watcher, which sent one line, keeps 128 bytes.
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 128, maximum: 65536))
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { [loopWrites] channel in
            channel.eventLoop.makeCompletedFuture {
                let session = ClientSession(handler: self.handler)
                let client = SocketClientHandler(eventLoop: channel.eventLoop, session: session)
                try channel.pipeline.syncOperations.addHandler(client)
                let output = SocketLineOutput(client, on: channel.eventLoop, writes: loopWrites.writes(for: channel.eventLoop))
                return Connection(channel: channel, session: session, inputs: client.inputs, output: output)
            }
        }
        let server: NIOAsyncChannel<Connection, Never>
        if let inherited = settings.inheritedSocket {
            // Socket activation: systemd owns the socket file; it is neither changed nor removed.
            server = try await bootstrap.bind(inherited, childChannelInitializer: initializer)
        } else {
            server = try await bootstrap.bind(
                unixDomainSocketPath: settings.path, cleanupExistingSocketFile: true, childChannelInitializer: initializer)
            guard chmod(settings.path, mode_t(settings.mode)) == 0 else {
                let reason = String(cString: strerror(errno))
                try? await server.channel.close()
                unlink(settings.path)
                throw SocketServerError(message: "cannot set mode \(String(settings.mode, radix: 8)) on \(settings.path): \(reason)")
            }
        }
        defer { if settings.inheritedSocket == nil { unlink(settings.path) } }
        logger.notice("listening on \(settings.inheritedSocket.map { "fd \($0) from systemd" } ?? settings.path)")
        onListening()

        // On SIGTERM/SIGINT every connection is cancelled and closed, so shutdown takes well
        // under a second even with watchers connected.
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { connections in
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            // The connection's task runs on its event loop: no thread hop per
                            // request, and its lines are written from there as they come. (Set
                            // here, not by `withTaskExecutorPreference` inside: one frame less in
                            // every connection's task, which kept a third slab of the task
                            // allocator, 0.9 KB a watcher.)
                            connections.addTask(executorPreference: EventLoopTaskExecutor(connection.channel.eventLoop)) {
                                await self.serve(connection)
                            }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // Shutting down.
        }
        logger.info("socket server stopped")
    }

    /// A client connection: its session (which its `SocketClientHandler` offers each message to
    /// first, ``ClientSession/answerAtOnce(_:)``); its messages come through `inputs`, its lines are
    /// written by `output` (both from its handler).
    struct Connection: Sendable {
        var channel: any Channel
        var session: ClientSession
        var inputs: SocketInputs
        var output: SocketLineOutput
    }

    private func serve(_ connection: Connection) async {
        let channel = connection.channel
        defer { channel.close(promise: nil) }
        let active = activeClients.wrappingAdd(1, ordering: .relaxed).newValue
        defer { activeClients.wrappingSubtract(1, ordering: .relaxed) }
        let limit = maxClients.load(ordering: .relaxed)
        if active > limit {
            await refuse(channel, limit: limit)
            return
        }
        let session = connection.session
        // A client that goes away ends its session at once, even while nothing is being written.
        channel.closeFuture.whenComplete { _ in session.hangUp() }
        await session.run(connection.inputs, writer: connection.output, offered: true)
        logEnd(connection)
    }

    // Not in `serve`: what they build would be kept in the async frame of every connection's
    // task for as long as it is connected (0.4 KB a watcher for the one log line, measured).

    private func refuse(_ channel: any Channel, limit: Int) async {
        logger.warning("refusing a client: \(limit) clients connected (socket.max_clients)")
        let busy = RPCMessage.error(id: .null, WeatherError(.busy, "busy: \(limit) clients connected; try again later"))
        try? await channel.writeAndFlush(ByteBuffer(string: busy.serialized + "\n"))
    }

    private func logEnd(_ connection: Connection) {
        if let failure = connection.inputs.failure { logger.debug("client connection ended: \(failure)") }
    }
}

extension ClientInput {
    /// A line of the socket protocol; a line over the limit is refused and ends the connection.
    @Sendable init(_ frame: JSONLineFrame) {
        switch frame {
        case .line(let buffer):
            self = .message(Array(buffer.readableBytesView))
        case .oversized:
            self = .refuse(
                reply: RPCMessage.error(
                    id: .null,
                    WeatherError(.invalidRequest, "invalid request: line longer than \(RPCMessage.maxLineBytes) bytes; closing")
                ).serialized)
        }
    }
}

/// The socket could not be set up.
public struct SocketServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension SocketServer: Reconfigurable {
    /// A new `socket.mode` and `socket.max_clients` apply at once (`socket.path` needs a restart).
    public func apply(_ change: ConfigChange) {
        if change.changed("socket.mode") || change.changed("socket.max_clients") {
            update(mode: change.new.socket.mode, maxClients: change.new.socket.maxClients)
        }
    }
}
