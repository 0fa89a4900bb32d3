import NIOCore

/// Splits a byte stream into lines of at most `maxLength` bytes. A longer line yields
/// `.oversized` once, as soon as the limit is passed, and everything after it is dropped: the
/// connection is to be closed.
public struct JSONLineDecoder: NIOSingleStepByteToMessageDecoder {
    public typealias InboundOut = JSONLineFrame

    private let maxLength: Int
    /// Bytes at the start of the buffer already searched for a newline.
    private var scanned = 0
    private var discarding = false

    public init(maxLength: Int) {
        self.maxLength = maxLength
    }

    public mutating func decode(buffer: inout ByteBuffer) throws -> JSONLineFrame? {
        nextFrame(in: &buffer)
    }

    public mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> JSONLineFrame? {
        if let frame = nextFrame(in: &buffer) { return frame }
        return seenEOF ? lastFrame(in: &buffer) : nil
    }

    /// The next whole line at the start of `buffer` (its reader index moves past it), or nil until
    /// one has come: `buffer` then keeps what came of it, to be added to.
    public mutating func nextFrame(in buffer: inout ByteBuffer) -> JSONLineFrame? {
        if discarding {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return nil
        }
        let view = buffer.readableBytesView
        let searchStart = view.index(view.startIndex, offsetBy: scanned)
        guard let newline = view[searchStart...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = view.count
            if view.count > maxLength + 1 { return overflow(&buffer) }  // +1: room for a "\r"
            return nil
        }
        scanned = 0
        var length = view.distance(from: view.startIndex, to: newline)
        if length > maxLength + 1 || (length == maxLength + 1 && view[view.index(before: newline)] != UInt8(ascii: "\r")) {
            return overflow(&buffer)
        }
        if length > 0, view[view.index(before: newline)] == UInt8(ascii: "\r") { length -= 1 }
        let line = buffer.getSlice(at: buffer.readerIndex, length: length)!
        buffer.moveReaderIndex(forwardBy: view.distance(from: view.startIndex, to: newline) + 1)
        return .line(line)
    }

    /// The client sends no more: what is left of `buffer` after its whole lines, a last line
    /// without its newline, still counts, under the same limit, without a trailing "\r".
    public mutating func lastFrame(in buffer: inout ByteBuffer) -> JSONLineFrame? {
        guard !discarding, buffer.readableBytes > 0 else { return nil }
        scanned = 0
        var length = buffer.readableBytes
        if buffer.getInteger(at: buffer.readerIndex + length - 1, as: UInt8.self) == UInt8(ascii: "\r") { length -= 1 }
        guard length <= maxLength else { return overflow(&buffer) }
        let line = buffer.getSlice(at: buffer.readerIndex, length: length)!
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .line(line)
    }

    private mutating func overflow(_ buffer: inout ByteBuffer) -> JSONLineFrame {
        discarding = true
        scanned = 0
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .oversized
    }
}
