import Foundation

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What one `RawSocket.exchange` saw.
struct RawExchange: Sendable {
    /// Every byte the daemon sent, until it closed the connection.
    var received: [UInt8]
    /// The bytes of ours the kernel took before sending failed (all of them when `sendError` is nil).
    var sent: Int
    /// Why sending stopped early: the daemon closed the connection first (e.g. after a line over the
    /// limit) — EPIPE or ECONNRESET.
    var sendError: String?

    /// The received bytes split at each `\n`; a last line without one is kept as it is.
    var lines: [[UInt8]] {
        var lines = received.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// The last received byte is a newline (or nothing was received): no reply was cut short.
    var endsWithNewline: Bool { received.last.map { $0 == UInt8(ascii: "\n") } ?? true }
}

/// Exact bytes over a `RawSocket` (invalid UTF-8, NUL bytes), read to the end. These read the
/// descriptor directly: don't mix them with `readLine` on the same socket.
extension RawSocket {
    /// Sends `payload` and then closes the sending direction, while reading everything the daemon
    /// sends until it closes the connection (it does once it has answered a client that closed its
    /// side). Sending and reading run on threads of their own, so a daemon that stops reading until
    /// its replies are read never deadlocks the exchange. Throws `TimeoutError` when the daemon has
    /// not closed the connection within `timeout`.
    func exchange(_ payload: [UInt8], timeout: Duration = safetyDeadline) async throws -> RawExchange {
        async let received = readToEnd(timeout: timeout)
        let (sent, sendError) = await sendAllThenCloseWriting(payload)
        return RawExchange(received: try await received, sent: sent, sendError: sendError)
    }

    /// Writes `payload` on a thread of its own and shuts the sending direction down; returns how
    /// many bytes went out and, if the peer closed first, why sending stopped.
    func sendAllThenCloseWriting(_ payload: [UInt8]) async -> (sent: Int, error: String?) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                var sent = 0
                var failure: String?
                while sent < payload.count {
                    let n = payload[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else {
                        failure = String(cString: strerror(errno))
                        break
                    }
                    sent += n
                }
                closeWriting()
                continuation.resume(returning: (sent, failure))
            }
        }
    }

    /// Every byte until end of file (a reset after the daemon closed counts as end of file too, as
    /// in `readLine`), read on a thread of its own.
    func readToEnd(timeout: Duration) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(with: Result { try blockingReadToEnd(timeout: timeout) })
            }
        }
    }

    private func blockingReadToEnd(timeout: Duration) throws -> [UInt8] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                let tail = String(decoding: received.suffix(300), as: UTF8.self)
                throw TimeoutError(
                    what: "the daemon to close the connection (received \(received.count) bytes, ending: \(tail))", timeout: timeout)
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 || (n < 0 && errno == ECONNRESET) { return received }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ChildProcessError(message: "recv: \(String(cString: strerror(errno)))")
            }
            received += chunk[..<n]
        }
    }
}
