import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `DaemonSocket`: weatherctl's blocking client, against the same scripted stand-in for weatherd
/// as `DaemonConnection`. Its reply rules are `DaemonConnection`'s (`ReplyWait`); these tests hold
/// what is its own: reading lines from a plain socket, the end of the connection, connecting.
/// Each client part runs on a thread of its own (`onThread`): a blocking read must not hold a
/// cooperative thread.
/// (A hang guard, not a speed check: one test moves a 16 MiB line, slow in a debug build on a busy machine.)
@Suite(.timeLimit(.minutes(3))) struct DaemonSocketTests {
    @Test func callsSendRequestLinesWithTheNextIDAndReturnTheirResults() async throws {
        let server = try ScriptedServer { client in
            var lines: [String] = []
            for n in 0..<2 {
                let line = try client.readLine()
                lines.append(line ?? "")
                try client.write(try replyLine(to: line, result: .object(["n": .integer(Int64(n))])))
            }
            return lines
        }

        let results = try await onThread {
            try DaemonSocket.with(socketPath: server.path) { socket in
                [try socket.call("search", ["city": "Oslo"]), try socket.call("state")]
            }
        }

        #expect(results == [.object(["n": .integer(0)]), .object(["n": .integer(1)])])
        let requests = try await server.finished().map(parseLine)
        #expect(requests.map { $0["id"] } == [.integer(1), .integer(2)])
        #expect(requests[0]["method"] == "search" && requests[0]["params"]?["city"] == "Oslo")
        #expect(requests[1]["method"] == "state")
    }

    @Test func notificationsBeforeTheReplyArePassedOnAndEmptyAndCRLFLinesAreRead() async throws {
        let server = try ScriptedServer { client in
            let line = try client.readLine()
            try client.write("\n\r\n")
            try client.write(RPCMessage.notification(method: "state", params: .object([:])) + "\r\n")
            try client.write(try replyLine(to: line, result: .string("ok")))
            return []
        }

        let (result, notified) = try await onThread {
            try DaemonSocket.with(socketPath: server.path) { socket in
                var notified: [String] = []
                let result = try socket.call("watch") { notified.append($0["method"]?.stringValue ?? "?") }
                return (result, notified)
            }
        }

        #expect(result == .string("ok"))
        #expect(notified == ["state"])
        _ = try await server.finished()
    }

    /// The form `weatherctl bar` uses, waiting in poll(2): one read per readable socket, then the
    /// whole lines it completed; a part of a line waits for the rest.
    @Test func readAvailableThenBufferedMessagesGiveTheWholeLinesReadSoFar() async throws {
        let server = try ScriptedServer { client in
            try client.write(
                "{\"jsonrpc\":\"2.0\",\"method\":\"state\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"method\":\"overlays\",\"params\":{}}\n{\"jsonrpc\""
            )
            let line = try client.readLine()
            try client.write(":\"2.0\",\"id\":1,\"result\":true}\n")
            return [line ?? ""]
        }

        let (first, second, last) = try await onThread {
            let socket = try DaemonSocket.open(socketPath: server.path)
            defer { socket.close() }
            func awaitReadable() {
                var fds = [pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 1, 10_000)
            }
            var first: [JSONValue?] = []
            // The first write may come in more than one read: read until both whole lines are there.
            while first.count < 2 {
                awaitReadable()
                #expect(try socket.readAvailable())
                while let message = try socket.bufferedMessage() { first.append(message) }
            }
            let second = try socket.bufferedMessage()
            try socket.send("more")
            var last: [JSONValue] = []
            while true {
                awaitReadable()
                let open = try socket.readAvailable()
                while let message = try socket.bufferedMessage() { last.append(message) }
                if !open { break }
            }
            return (first, second, last)
        }

        #expect(first.map { $0?["method"] } == [.string("state"), .string("overlays")])
        #expect(second == nil, "a part of a line is not a message")
        #expect(last.map { $0["result"] } == [.bool(true)])
        #expect(try await server.finished() == ["more"])
    }

    @Test func aLastLineWithoutItsNewlineStillCountsThenReceiveIsNil() async throws {
        let server = try ScriptedServer { client in
            try client.write(
                "{\"jsonrpc\":\"2.0\",\"method\":\"state\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"method\":\"overlays\",\"params\":{}}")
            return []
        }

        let received = try await onThread {
            try DaemonSocket.with(socketPath: server.path) { socket in
                [try socket.receive(), try socket.receive(), try socket.receive()]
            }
        }

        #expect(received.map { $0?["method"] } == [.string("state"), .string("overlays"), nil])
        _ = try await server.finished()
    }

    @Test func aDaemonThatClosesBeforeAnsweringIsAProtocolError() async throws {
        let server = try ScriptedServer { client in [try client.readLine() ?? ""] }

        let error = try await onThread {
            Result { try DaemonSocket.with(socketPath: server.path) { try $0.call("state") } }
        }

        #expect((error.failure as? ProtocolError)?.message == "the daemon closed the connection before answering")
        _ = try await server.finished()
    }

    @Test func aBusyRefusalBeforeTheCloseIsARemoteError() async throws {
        let server = try ScriptedServer { client in
            try client.write(
                RPCMessage.error(id: .null, WeatherError(.busy, "busy: 1 clients connected; try again later")).serialized + "\n")
            return []
        }

        let error = try await onThread {
            Result { try DaemonSocket.with(socketPath: server.path) { try $0.call("state") } }
        }

        #expect((error.failure as? RemoteError)?.name == "busy", "\(error)")
        _ = try await server.finished()
    }

    @Test func aLineOverTheLimitIsAProtocolError() async throws {
        let server = try ScriptedServer { client in
            _ = try client.readLine()
            try client.write(String(repeating: " ", count: DaemonConnection.maxLineBytes + 2) + "\n")
            return []
        }

        let error = try await onThread {
            Result { try DaemonSocket.with(socketPath: server.path) { try $0.call("state") } }
        }

        #expect((error.failure as? ProtocolError)?.message == "the daemon sent a line over \(DaemonConnection.maxLineBytes) bytes")
        _ = try await server.finished()
    }

    @Test func aLineThatIsNotJSONIsAProtocolError() async throws {
        let server = try ScriptedServer { client in
            _ = try client.readLine()
            try client.write("HTTP/1.1 400 Bad Request\r\n")
            return []
        }

        let error = try await onThread {
            Result { try DaemonSocket.with(socketPath: server.path) { try $0.call("state") } }
        }

        #expect(error.failure is ProtocolError, "\(error)")
        _ = try await server.finished()
    }

    @Test func aMissingOrDeadSocketIsAConnectError() async throws {
        let missing = "/tmp/weatherd-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sock"
        let stale = missing + ".stale"
        try leaveStaleSocketFile(at: stale)
        defer { unlink(stale) }

        let errors = try await onThread {
            [missing, stale].map { path in Result { try DaemonSocket.with(socketPath: path) { _ in } } }
        }

        let connectErrors = errors.map { $0.failure as? ConnectError }
        #expect(connectErrors[0]?.description == "cannot connect to \(missing): No such file or directory (is weatherd running?)")
        #expect(connectErrors[1]?.reason == "Connection refused")
    }

    @Test func aConnectionLostIsAConnectionFailure() {
        #expect(isConnectionFailure(ConnectionLost(reason: "Connection reset by peer")))
    }
}

/// Runs `work` on a thread of its own and returns its result.
private func onThread<R: Sendable>(_ work: @escaping @Sendable () throws -> R) async throws -> R {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
