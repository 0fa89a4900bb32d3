import NIOCore
import NIOPosix
import WeatherRPC
import WeatherSocket
import WeatherWire

/// An async connection to weatherd's socket (SwiftNIO), for the tests and any caller that must not
/// block a thread; `weatherctl` uses the blocking `DaemonSocket`.
///
/// Use it inside `DaemonConnection.with(socketPath:)`, which closes it when the body returns.
public final class DaemonConnection {
    /// The daemon's lines can be long (overlays of a large grid); this bounds one of them.
    public static let maxLineBytes = DaemonSocket.maxLineBytes

    private var inbound: NIOAsyncChannelInboundStream<JSONLineFrame>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var nextID = 1

    private init(inbound: NIOAsyncChannelInboundStream<JSONLineFrame>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// Connects to the daemon at `socketPath`, runs `body`, then closes the connection.
    /// - Throws: `ConnectError` when the daemon cannot be reached, else what `body` throws.
    public static func with<Result: Sendable>(
        socketPath: String, _ body: (DaemonConnection) async throws -> Result
    ) async throws -> Result {
        let channel: NIOAsyncChannel<JSONLineFrame, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(JSONLineDecoder(maxLength: maxLineBytes)))
                        return try NIOAsyncChannel<JSONLineFrame, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError {
            throw ConnectError(path: socketPath, reason: error.localizedReason)
        } catch {
            throw ConnectError(path: socketPath, reason: "\(error)")
        }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(DaemonConnection(inbound: inbound, outbound: outbound))
        }
    }

    /// Sends one line (a newline is added).
    public func send(_ line: String) async throws {
        try await outbound.write(ByteBuffer(string: line + "\n"))
    }

    /// The next message from the daemon, or nil when it closed the connection.
    public func receive() async throws -> JSONValue? {
        while let frame = try await inbound.next() {
            guard let bytes = frame.bytes else { throw ProtocolError(message: "the daemon sent a line over \(Self.maxLineBytes) bytes") }
            if bytes.isEmpty { continue }
            return try JSONValue.parse(bytes)
        }
        return nil
    }

    /// Sends a request and returns its reply's `result`; notifications that arrive first are
    /// passed to `onNotification`.
    /// - Throws: `RemoteError` for a JSON-RPC error reply, `ProtocolError` when the daemon closed
    ///   the connection first or answered nonsense.
    public func call(
        _ method: String, _ params: JSONObject = [:], onNotification: (JSONValue) -> Void = { _ in }
    ) async throws -> JSONValue {
        let id = nextID
        nextID += 1
        do {
            try await send(RPCMessage.request(id: id, method: method, params: params))
        } catch {
            while let message = try? await receive() {
                if let refusal = ReplyWait.refusal(message) { throw refusal }
            }
            throw error
        }
        while let message = try await receive() {
            switch try ReplyWait.classify(message, id: id) {
            case .reply(let result): return result
            case .notification(let notification): onNotification(notification)
            case .other: continue
            }
        }
        throw ProtocolError(message: "the daemon closed the connection before answering")
    }
}

extension IOError {
    /// The system's words for the error, e.g. "No such file or directory".
    var localizedReason: String {
        String(cString: strerror(errnoCode))
    }
}
