import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import WeatherCore
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

        public init(path: String, mode: UInt32, maxClients: Int) {
            self.path = path
            self.mode = mode
            self.maxClients = maxClients
        }
    }

    /// Requests one connection may have in progress at once; more wait (and the socket is not read).
    static let maxRequestsInFlight = 16

    private let settings: Settings
    private let handler: RequestHandler
    private let group: any EventLoopGroup
    private let logger: Logger
    private let onListening: @Sendable () -> Void
    private let activeClients = Atomic<Int>(0)

    /// - Parameter onListening: called once the socket accepts connections.
    public init(
        settings: Settings, handler: RequestHandler, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger, onListening: @escaping @Sendable () -> Void = {}
    ) {
        self.settings = settings
        self.handler = handler
        self.group = group
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            // A client may send its requests and close its side; it still gets its replies.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(unixDomainSocketPath: settings.path, cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(JSONLineDecoder(maxLength: RPCMessage.maxLineBytes)))
                    return try NIOAsyncChannel<JSONLineFrame, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        defer { unlink(settings.path) }
        guard chmod(settings.path, mode_t(settings.mode)) == 0 else {
            let reason = String(cString: strerror(errno))
            try? await server.channel.close()
            throw SocketServerError(message: "cannot set mode \(String(settings.mode, radix: 8)) on \(settings.path): \(reason)")
        }
        logger.notice("listening on \(settings.path)")
        onListening()

        // On SIGTERM/SIGINT every connection is cancelled and closed, so shutdown takes well
        // under a second even with watchers connected.
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { connections in
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            connections.addTask { await self.serve(connection) }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // Shutting down.
        }
        logger.info("socket server stopped")
    }

    private func serve(_ connection: NIOAsyncChannel<JSONLineFrame, ByteBuffer>) async {
        let active = activeClients.wrappingAdd(1, ordering: .relaxed).newValue
        defer { activeClients.wrappingSubtract(1, ordering: .relaxed) }
        if active > settings.maxClients {
            logger.warning("refusing a client: \(settings.maxClients) clients connected (socket.max_clients)")
            let busy = RPCMessage.error(
                id: .null, WeatherError(.busy, "busy: \(settings.maxClients) clients connected; try again later"))
            try? await connection.executeThenClose { _, outbound in
                try await outbound.write(ByteBuffer(string: busy.serialized + "\n"))
            }
            return
        }
        let outbox = Outbox()
        defer { handler.disconnected(outbox) }
        do {
            try await connection.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask {
                        try await outbox.drain { line in
                            try await outbound.write(ByteBuffer(string: line + "\n"))
                        }
                    }
                    await read(inbound, into: outbox)
                    outbox.finish()
                    try await tasks.waitForAll()
                }
            }
        } catch {
            logger.debug("client connection ended: \(error)")
        }
    }

    /// Reads requests until the client closes its side, sends an oversized line, or the task is
    /// cancelled. Requests run concurrently (a slow `search` does not hold up a `state`), at most
    /// `maxRequestsInFlight` at once.
    private func read(_ inbound: NIOAsyncChannelInboundStream<JSONLineFrame>, into outbox: Outbox) async {
        await withTaskGroup(of: Void.self) { requests in
            var inFlight = 0
            do {
                for try await frame in inbound {
                    guard let line = frame.bytes else {
                        logger.info("closing a client that sent a line over \(RPCMessage.maxLineBytes) bytes")
                        outbox.send(reply: RPCMessage.error(
                            id: .null,
                            WeatherError(.invalidRequest, "invalid request: line longer than \(RPCMessage.maxLineBytes) bytes; closing")
                        ).serialized)
                        break
                    }
                    await outbox.waitForRoom()
                    if inFlight >= Self.maxRequestsInFlight {
                        await requests.next()
                        inFlight -= 1
                    }
                    requests.addTask { [handler] in await handler.handle(line: line, outbox: outbox) }
                    inFlight += 1
                }
            } catch {
                logger.debug("reading from a client failed: \(error)")
            }
        }
    }
}

/// The socket could not be set up.
public struct SocketServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
