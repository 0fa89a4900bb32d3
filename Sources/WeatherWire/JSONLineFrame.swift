import NIOCore

/// One frame of the newline-delimited protocol.
public enum JSONLineFrame: Sendable {
    /// A line without its `\n` (and without a trailing `\r`).
    case line(ByteBuffer)
    /// A line longer than the limit arrived; what followed was discarded.
    case oversized
}

extension JSONLineFrame {
    /// The line's bytes, or nil for `.oversized`.
    public var bytes: [UInt8]? {
        if case .line(let buffer) = self { Array(buffer.readableBytesView) } else { nil }
    }
}
