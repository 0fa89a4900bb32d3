import NIOCore
import NIOWebSocket
import Synchronization
import WeatherCore
import WeatherSessions

/// One WebSocket client as a `ClientSession` transport: each text message (fragments joined) is one
/// JSON-RPC message; pings are answered; a close frame is answered and ends the input; a message over
/// `maxMessageBytes` closes the connection with 1009, a binary one with 1003.
struct WebSocketConnection {
    /// The longest message a client may send, in bytes.
    static let maxMessageBytes = RPCMessage.maxLineBytes

    let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>

    /// Sends a close frame with `code` (once); later writes fail, so the session ends.
    static func close(_ outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>, _ code: WebSocketErrorCode, closing: ClosingFlag) async {
        guard closing.set() else { return }
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
    }

    /// The client's messages as session inputs.
    struct Inputs: AsyncSequence, Sendable {
        typealias Element = ClientInput

        let inbound: NIOAsyncChannelInboundStream<WebSocketFrame>
        let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
        let closing: ClosingFlag

        struct AsyncIterator: AsyncIteratorProtocol {
            var frames: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
            let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
            let closing: ClosingFlag
            var message: ByteBuffer?

            mutating func next() async throws -> ClientInput? {
                while let frame = try await frames.next() {
                    switch frame.opcode {
                    case .text where message == nil, .continuation where message != nil:
                        var data = frame.unmaskedData
                        if message == nil { message = ByteBuffer() }
                        guard message!.readableBytes + data.readableBytes <= WebSocketConnection.maxMessageBytes else {
                            await WebSocketConnection.close(outbound, .messageTooLarge, closing: closing)
                            return nil
                        }
                        message!.writeBuffer(&data)
                        if frame.fin, let complete = message.take() {
                            return .message(Array(complete.readableBytesView))
                        }
                    case .ping:
                        try? await outbound.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
                    case .pong:
                        break
                    case .connectionClose:
                        // Answer with the client's code (none if it gave none), then no more input.
                        var data = frame.unmaskedData
                        let code = data.readWebSocketErrorCode() ?? .normalClosure
                        await WebSocketConnection.close(outbound, code, closing: closing)
                        return nil
                    case .binary:
                        await WebSocketConnection.close(outbound, .unacceptableData, closing: closing)
                        return nil
                    default:
                        await WebSocketConnection.close(outbound, .protocolError, closing: closing)
                        return nil
                    }
                }
                return nil
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(frames: inbound.makeAsyncIterator(), outbound: outbound, closing: closing)
        }
    }
}

/// Set once the close frame is sent: no data frame may follow it.
final class ClosingFlag: Sendable {
    private let flag = Atomic(false)

    /// Sets the flag; false if it was already set.
    func set() -> Bool { !flag.exchange(true, ordering: .relaxed) }

    var isSet: Bool { flag.load(ordering: .relaxed) }
}

/// The connection sent its close frame: nothing more is written.
struct WebSocketClosed: Error {}
