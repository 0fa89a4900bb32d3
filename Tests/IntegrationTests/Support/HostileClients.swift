import Foundation
import Testing
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

extension RawSocket {
    /// Sends `line` (and a newline) `count` times without reading a reply, as fast as the socket
    /// takes it, and stops early once the daemon has stopped reading: the socket's send buffer stayed
    /// full for `patience`. The last line may be left half sent. Returns the lines sent whole. The
    /// blocking calls run on a thread of their own, never on the tests' executor.
    func flood(_ line: String, count: Int, patience: Duration = .milliseconds(250)) async -> Int {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(returning: blockingFlood(line, count: count, patience: patience))
            }
        }
    }

    private func blockingFlood(_ line: String, count: Int, patience: Duration) -> Int {
        let bytes = Array((line + "\n").utf8)
        let waitMilliseconds = Int32(patience.components.seconds * 1000 + patience.components.attoseconds / 1_000_000_000_000_000)
        for sentLines in 0..<count {
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if n > 0 {
                    sent += n
                    continue
                }
                guard n < 0, errno == EAGAIN || errno == EWOULDBLOCK else { return sentLines }  // the daemon closed
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&poller, 1, waitMilliseconds) <= 0 { return sentLines }  // no longer read
            }
        }
        return count
    }

    /// Sends bytes that are not a whole line (no newline), and nothing after them.
    func sendPartial(_ text: String) throws {
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n == bytes.count else { throw ChildProcessError(message: "send: \(String(cString: strerror(errno)))") }
    }
}

/// A JSON-RPC request line.
func requestLine(_ id: Int, _ method: String, _ params: JSONObject = [:]) -> String {
    RPCMessage.request(id: id, method: method, params: params)
}

extension DaemonProcess {
    /// Opens `count` connections at once and holds them all while each answers `version`: every slot
    /// of `socket.max_clients` is free. Retries (a slot is released a moment after its client closed)
    /// until `timeout`, then fails with what the last try got. Returns the connections, admitted.
    @discardableResult
    func admittedClients(_ count: Int, timeout: Duration = safetyDeadline, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> [RawSocket]
    {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var last = ""
        while ContinuousClock.now < deadline {
            let sockets = try (0..<count).map { _ in try RawSocket(path: socketPath) }
            var answered = 0
            for (index, socket) in sockets.enumerated() {
                guard (try? socket.send(requestLine(index, "version"))) != nil else { continue }  // refused: closed
                let line = try await socket.readLine() ?? "end of file"
                if line.contains(#""result""#) { answered += 1 } else { last = line }
            }
            if answered == count { return sockets }
            for socket in sockets { socket.shutdown() }
        }
        Issue.record("not every one of \(count) slots is free after \(timeout): \(last)", sourceLocation: sourceLocation)
        return []
    }

    /// SIGTERM: a clean exit, whatever the clients connected are doing. Awaited with a bound only a
    /// daemon that does not end would reach (a busy machine makes a prompt exit later, not absent);
    /// the contract's second is a speed claim, printed here as a figure, not asserted.
    func expectPromptShutdown(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Duration {
        let (status, elapsed) = try await terminate(timeout: .seconds(60))
        #expect(status == 0, "exit status \(status): \(stderrText)", sourceLocation: sourceLocation)
        print("shutdown after SIGTERM took \(elapsed.formatted(.units(allowed: [.milliseconds])))")
        return elapsed
    }
}
