import Foundation
import NIOCore
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// `DaemonConnection`: the client side of the socket protocol, against a scripted stand-in for
/// weatherd on a Unix socket.
@Suite(.timeLimit(.minutes(1))) struct DaemonConnectionTests {
    // MARK: Calls

    @Test func aCallSendsOneJSONRPCRequestLine() async throws {
        let server = try ScriptedServer { client in
            let line = try client.readLine()
            try client.write(try replyLine(to: line, result: .object([:])))
            return [line ?? ""]
        }

        _ = try await DaemonConnection.with(socketPath: server.path) { connection in
            try await connection.call("search", ["city": "Oslo"])
        }

        let request = try parseLine(try await server.finished()[0])
        #expect(request["jsonrpc"] == .string("2.0"))
        #expect(request["id"] == .integer(1))
        #expect(request["method"] == .string("search"))
        #expect(request["params"]?["city"] == .string("Oslo"))
    }

    @Test func aCallReturnsTheResultOfItsReply() async throws {
        let server = try ScriptedServer { client in
            try client.write(try replyLine(to: try client.readLine(), result: .object(["version": "9.9.9"])))
            return []
        }

        let result = try await DaemonConnection.with(socketPath: server.path) { connection in
            try await connection.call("version")
        }

        #expect(result["version"] == .string("9.9.9"))
        _ = try await server.finished()
    }

    @Test func eachCallOnAConnectionHasTheNextID() async throws {
        let server = try ScriptedServer { client in
            var ids: [String] = []
            for _ in 0..<3 {
                let line = try client.readLine()
                ids.append(try parseLine(line ?? "{}")["id"]?.serialized ?? "none")
                try client.write(try replyLine(to: line, result: .object([:])))
            }
            return ids
        }

        try await DaemonConnection.with(socketPath: server.path) { connection in
            for _ in 0..<3 { _ = try await connection.call("state") }
        }

        #expect(try await server.finished() == ["1", "2", "3"])
    }

    @Test func notificationsBeforeTheReplyArePassedToOnNotification() async throws {
        let server = try ScriptedServer { client in
            let line = try client.readLine()
            try client.write(RPCMessage.notification(method: "state", params: .object(["phase": "loading"])) + "\n")
            try client.write(RPCMessage.notification(method: "overlays", params: .object(["seq": .integer(4)])) + "\n")
            try client.write(try replyLine(to: line, result: .object(["topics": .array([])])))
            return []
        }

        let (result, notified) = try await DaemonConnection.with(socketPath: server.path) { connection in
            var notified: [String] = []
            let result = try await connection.call("watch") { notified.append($0["method"]?.stringValue ?? "?") }
            return (result, notified)
        }

        #expect(notified == ["state", "overlays"])
        #expect(result["topics"] == JSONValue.array([]))
        _ = try await server.finished()
    }

    @Test func emptyLinesFromTheDaemonAreSkipped() async throws {
        let server = try ScriptedServer { client in
            let line = try client.readLine()
            try client.write("\n\r\n")
            try client.write(try replyLine(to: line, result: .string("ok")))
            return []
        }

        let result = try await DaemonConnection.with(socketPath: server.path) { connection in
            try await connection.call("state")
        }

        #expect(result == .string("ok"))
        _ = try await server.finished()
    }

    // MARK: Failures

    @Test func anErrorReplyIsARemoteErrorWithItsCodeMessageAndName() async throws {
        let server = try ScriptedServer { client in
            let request = try parseLine(try client.readLine() ?? "{}")
            try client.write(RPCMessage.error(id: request["id"] ?? .null, .notFound("Atlantis")).serialized + "\n")
            return []
        }

        let error = await #expect(throws: RemoteError.self) {
            try await DaemonConnection.with(socketPath: server.path) { connection in
                try await connection.call("search", ["city": "Atlantis"])
            }
        }

        #expect(error?.code == -32001)
        #expect(error?.name == "not_found")
        #expect(error?.message == "city not found: Atlantis")
        _ = try await server.finished()
    }

    @Test func aDaemonThatClosesBeforeAnsweringIsAProtocolError() async throws {
        let server = try ScriptedServer { client in
            [try client.readLine() ?? ""]  // read the request, then close
        }

        let error = await #expect(throws: ProtocolError.self) {
            try await DaemonConnection.with(socketPath: server.path) { connection in
                try await connection.call("state")
            }
        }

        #expect(error?.message == "the daemon closed the connection before answering")
        #expect(try await server.finished().first?.isEmpty == false, "the request was sent")
    }

    @Test func aBusyRefusalBeforeTheCloseIsARemoteError() async throws {
        // A daemon at socket.max_clients: says busy at once and closes, reading nothing.
        let server = try ScriptedServer { client in
            try client.write(
                RPCMessage.error(id: .null, WeatherError(.busy, "busy: 1 clients connected; try again later")).serialized + "\n")
            return []
        }

        let error = await #expect(throws: RemoteError.self) {
            try await DaemonConnection.with(socketPath: server.path) { connection in
                try await connection.call("state")
            }
        }

        #expect(error?.code == -32007)
        #expect(error?.name == "busy")
        _ = try await server.finished()
    }

    @Test func aReplyWithNeitherResultNorErrorIsAProtocolError() async throws {
        let server = try ScriptedServer { client in
            let request = try parseLine(try client.readLine() ?? "{}")
            try client.write(JSONValue.object(["jsonrpc": "2.0", "id": request["id"] ?? .null]).serialized + "\n")
            return []
        }

        await #expect(throws: ProtocolError.self) {
            try await DaemonConnection.with(socketPath: server.path) { connection in
                try await connection.call("state")
            }
        }
        _ = try await server.finished()
    }

    @Test func receiveIsNilOnceTheDaemonClosed() async throws {
        let server = try ScriptedServer { client in
            try client.write("{\"jsonrpc\":\"2.0\",\"method\":\"state\",\"params\":{}}\n")
            return []
        }

        let received = try await DaemonConnection.with(socketPath: server.path) { connection in
            [try await connection.receive(), try await connection.receive()]
        }

        #expect(received[0]?["method"] == .string("state"))
        #expect(received[1] == nil)
        _ = try await server.finished()
    }

    // MARK: Connecting

    @Test func aMissingSocketIsAConnectError() async throws {
        let path = "/tmp/weatherd-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sock"

        let error = await #expect(throws: ConnectError.self) {
            try await DaemonConnection.with(socketPath: path) { _ in }
        }

        #expect(error?.path == path)
        #expect(error?.reason == "No such file or directory")
        #expect(error?.description == "cannot connect to \(path): No such file or directory (is weatherd running?)")
    }

    @Test func aSocketNobodyListensOnIsAConnectError() async throws {
        let path = "/tmp/weatherd-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sock"
        try leaveStaleSocketFile(at: path)
        defer { unlink(path) }

        let error = await #expect(throws: ConnectError.self) {
            try await DaemonConnection.with(socketPath: path) { _ in }
        }

        #expect(error?.reason == "Connection refused")
    }

    @Test func connectionFailuresAreTheTransportsErrorsNotTheDaemonsAnswers() {
        #expect(isConnectionFailure(IOError(errnoCode: ECONNRESET, reason: "read")))
        #expect(isConnectionFailure(ChannelError.ioOnClosedChannel))
        #expect(!isConnectionFailure(RemoteError(json: WeatherError(.busy, "busy").json)))
    }
}

func parseLine(_ line: String) throws -> JSONValue {
    try JSONValue.parse(Array(line.utf8))
}

/// A reply line (with its newline) with `result` to the request `line`.
func replyLine(to line: String?, result: JSONValue) throws -> String {
    guard let line else { throw ServerError(message: "the client sent no request") }
    let request = try parseLine(line)
    return RPCMessage.result(id: request["id"] ?? .null, result).serialized + "\n"
}
