import Foundation
import ServiceLifecycle
import Synchronization
import Testing
import WeatherCore
import WeatherSessions

@testable import TestSupport
@testable import WeatherDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// `SocketServer`: a real server on a socket in a temporary directory, in a `ServiceGroup`, over a
/// real `RequestHandler` and engine (an in-memory upstream), reached by plain socket clients.
@Suite struct SocketServerTests {
    /// Where a server is: listening once `onListening` was called; ended when its group returned.
    enum Phase: Sendable {
        case starting
        case listening
        case ended(String)
    }

    /// A server running in a `ServiceGroup`.
    final class Running: Sendable {
        let path: String
        let core: CoreHarness
        let group: ServiceGroup
        let run: Task<Void, any Error>

        init(path: String, core: CoreHarness, group: ServiceGroup, phase: Observed<Phase>) {
            self.path = path
            self.core = core
            self.group = group
            run = Task {
                do {
                    try await group.run()
                } catch {
                    phase.update { $0 = .ended("the service group threw \(error)") }
                    throw error
                }
                phase.update { $0 = .ended("the service group returned") }
            }
        }

        /// Shuts the group down gracefully (as SIGTERM does) and waits until the server returned.
        func shutDown() async throws {
            await group.triggerGracefulShutdown()
            try await run.value
        }
    }

    /// Starts a server on `<temporary directory>/weatherd.sock`, waits until it listens, runs
    /// `body`, and shuts the server down (also when `body` throws). Returns the socket's path.
    @discardableResult
    private func withServer(
        mode: UInt32 = 0o660, maxClients: Int = 8, directory: TemporaryDirectory? = nil,
        onListening: @escaping @Sendable (String) -> Void = { _ in },
        _ body: (Running) async throws -> Void
    ) async throws -> String {
        let directory = try directory ?? TemporaryDirectory()
        let path = directory.file("weatherd.sock")
        let core = try CoreHarness(cities: ["Oslo": sampleObservation("Oslo", id: 3_143_244, lat: 59.91, lon: 10.75)])
        let phase = Observed(Phase.starting)
        let server = SocketServer(
            settings: .init(path: path, mode: mode, maxClients: maxClients), handler: core.handler, logger: silentLogger,
            onListening: {
                onListening(path)
                phase.update { $0 = .listening }
            })
        let running = Running(
            path: path, core: core, group: ServiceGroup(configuration: .init(services: [.init(service: server)], logger: silentLogger)),
            phase: phase)
        do {
            // As long as the server runs: a busy machine only makes it later.
            _ = try await phase.wait(for: "the server to listen on \(path)") { phase -> Bool? in
                switch phase {
                case .starting: return nil
                case .listening: return true
                case .ended(let why): throw ChildProcessError(message: "the server ended before listening on \(path): \(why)")
                }
            }
            try await body(running)
        } catch {
            try? await running.shutDown()
            throw error
        }
        try await running.shutDown()
        return withExtendedLifetime(directory) { path }
    }

    private func reply(to request: String, on socket: RawSocket) async throws -> JSONValue {
        try socket.send(request)
        let line = try #require(try await socket.readLine(), "the server closed the connection instead of answering \(request)")
        return try JSONValue.parse(Array(line.utf8))
    }

    private func version(id: Int) -> String {
        RPCMessage.request(id: id, method: "version")
    }

    // MARK: Requests

    @Test func aRequestGetsItsReply() async throws {
        try await withServer { server in
            let client = try RawSocket(path: server.path)

            let reply = try await reply(to: version(id: 7), on: client)

            #expect(reply["jsonrpc"] == .string("2.0"))
            #expect(reply["id"] == .integer(7))
            #expect(reply["result"]?["version"] == .string(WeatherdVersion.current))
        }
    }

    @Test func aSearchIsAnsweredThroughTheEngine() async throws {
        try await withServer { server in
            let client = try RawSocket(path: server.path)

            let reply = try await reply(to: RPCMessage.request(id: 1, method: "search", params: ["city": "Oslo"]), on: client)

            #expect(reply["result"]?["properties"]?["name"] == .string("Oslo"), "\(reply.serialized)")
            let state = await server.core.engine.currentState
            #expect(state.input == .text(city: "Oslo"))
        }
    }

    @Test func aClientThatClosesItsSendingSideStillGetsItsReplies() async throws {
        try await withServer { server in
            let client = try RawSocket(path: server.path)
            try client.send(version(id: 1))
            try client.send(version(id: 2))
            client.closeWriting()

            let first = try #require(try await client.readLine())
            let second = try #require(try await client.readLine())
            #expect(try JSONValue.parse(Array(first.utf8))["id"] == .integer(1))
            #expect(try JSONValue.parse(Array(second.utf8))["id"] == .integer(2))
            #expect(try await client.readLine() == nil, "then the server closes")
        }
    }

    // MARK: The socket file

    @Test(arguments: [0o600, 0o660, 0o666] as [UInt32])
    func theSocketFileGetsTheConfiguredMode(mode: UInt32) async throws {
        try await withServer(mode: mode) { server in
            var info = stat()
            try #require(stat(server.path, &info) == 0, "stat \(server.path): \(String(cString: strerror(errno)))")
            #expect(info.st_mode & S_IFMT == S_IFSOCK)
            #expect(info.st_mode & 0o777 == mode_t(mode), "mode \(String(info.st_mode & 0o777, radix: 8))")
        }
    }

    @Test func theSocketFileIsRemovedAtShutdown() async throws {
        let directory = try TemporaryDirectory()
        let path = try await withServer(directory: directory) { server in
            #expect(FileManager.default.fileExists(atPath: server.path))
        }

        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aStaleSocketFileAtThePathIsReplaced() async throws {
        let directory = try TemporaryDirectory()
        try leaveStaleSocketFile(at: directory.file("weatherd.sock"))

        try await withServer(directory: directory) { server in
            let client = try RawSocket(path: server.path)
            #expect(try await reply(to: version(id: 1), on: client)["result"] != nil)
        }
    }

    @Test func onListeningIsCalledOnceTheSocketAcceptsConnectionsWithItsMode() async throws {
        // What the callback found, at the moment it was called: a client connected then (before
        // the server accepted anyone), and the socket file's mode.
        let seen = Mutex<[(client: RawSocket?, mode: mode_t)]>([])
        try await withServer(
            mode: 0o600,
            onListening: { path in
                var info = stat()
                let mode = stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
                let client = try? RawSocket(path: path)
                seen.withLock { $0.append((client, mode)) }
            }
        ) { server in
            let calls = seen.withLock { $0 }
            try #require(calls.count == 1, "onListening is called once")
            #expect(calls[0].mode == 0o600)
            let early = try #require(calls[0].client, "a client could connect when onListening was called")

            // The connection made from the callback is accepted and served.
            #expect(try await reply(to: version(id: 1), on: early)["id"] == .integer(1))
        }
    }

    // MARK: Limits

    @Test func aLineOfExactly64KiBIsARequest() async throws {
        try await withServer { server in
            let client = try RawSocket(path: server.path)
            let request = version(id: 5)
            let padded = request + String(repeating: " ", count: RPCMessage.maxLineBytes - request.utf8.count)
            #expect(padded.utf8.count == 64 * 1024)

            #expect(try await reply(to: padded, on: client)["id"] == .integer(5))
        }
    }

    @Test func aLineOver64KiBGetsInvalidRequestAndTheConnectionIsClosed() async throws {
        try await withServer { server in
            let client = try RawSocket(path: server.path)
            let request = version(id: 5)
            let oversized = request + String(repeating: " ", count: RPCMessage.maxLineBytes + 1 - request.utf8.count)
            // A request after it on the same connection is never read.
            try client.send(oversized + "\n" + version(id: 6))

            let line = try #require(try await client.readLine())
            let reply = try JSONValue.parse(Array(line.utf8))
            #expect(reply["id"] == .null)
            #expect(reply["error"]?["code"] == .integer(-32600), "\(reply.serialized)")
            #expect(try await client.readLine() == nil, "closed after the error")
        }
    }

    @Test func aLineOver64KiBEndsOnlyItsOwnConnection() async throws {
        try await withServer { server in
            let other = try RawSocket(path: server.path)
            let offender = try RawSocket(path: server.path)
            try offender.send(String(repeating: "x", count: RPCMessage.maxLineBytes + 1))
            _ = try await offender.readLine()
            #expect(try await offender.readLine() == nil)

            #expect(try await reply(to: version(id: 1), on: other)["id"] == .integer(1))
        }
    }

    @Test func aClientBeyondMaxClientsGetsBusyAndIsClosed() async throws {
        try await withServer(maxClients: 2) { server in
            // Two clients, each served (so each counts as connected).
            let first = try RawSocket(path: server.path)
            let second = try RawSocket(path: server.path)
            #expect(try await reply(to: version(id: 1), on: first)["id"] == .integer(1))
            #expect(try await reply(to: version(id: 1), on: second)["id"] == .integer(1))

            let third = try RawSocket(path: server.path)
            let line = try #require(try await third.readLine(), "a refusal before the close")
            let refusal = try JSONValue.parse(Array(line.utf8))
            #expect(refusal["id"] == .null)
            #expect(refusal["error"]?["code"] == .integer(-32007), "\(refusal.serialized)")
            #expect(refusal["error"]?["data"]?["name"] == .string("busy"))
            #expect(try await third.readLine() == nil, "closed after busy")
        }
    }

    @Test func aRefusedClientDoesNotDisturbTheConnectedOnes() async throws {
        try await withServer(maxClients: 1) { server in
            let connected = try RawSocket(path: server.path)
            #expect(try await reply(to: version(id: 1), on: connected)["id"] == .integer(1))
            let refused = try RawSocket(path: server.path)
            _ = try await refused.readLine()
            #expect(try await refused.readLine() == nil)

            #expect(try await reply(to: version(id: 2), on: connected)["id"] == .integer(2))
        }
    }

    // MARK: Shutdown

    @Test func shutdownClosesConnectedClients() async throws {
        try await withServer { server in
            let client = try RawSocket(path: server.path)
            #expect(try await reply(to: RPCMessage.request(id: 1, method: "watch"), on: client)["id"] == .integer(1))

            try await server.shutDown()

            // Whatever watch notifications were queued, the connection then ends.
            var lines = 0
            while try await client.readLine() != nil {
                lines += 1
                try #require(lines < 100, "the server kept the connection open after shutdown")
            }
        }
    }
}
