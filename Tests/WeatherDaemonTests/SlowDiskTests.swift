import Foundation
import NIOPosix
import ServiceLifecycle
import Testing
import WeatherCore

@testable import TestSupport
@testable import WeatherDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// The state files are written off the event loops: a slow disk holds up only the request whose
/// change is written. One event loop serves both clients, so a write blocking it would hold up both.
@Suite(.timeLimit(.minutes(1))) struct SlowDiskTests {
    @Test func aCachedSearchIsAnsweredWhileACityChangeWaitsForTheDiskWhichItsReplyFollows() async throws {
        let directory = try TemporaryDirectory()
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // The first flush waits until the test lets it go; every flush is counted as it begins and ends.
        let gate = DispatchSemaphore(value: 0)
        let begun = Observed(0)
        let ended = Observed(0)
        let store = FileCityStore(
            directory: directory.path, logger: silentLogger, pool: pool,
            sync: { fd in
                begun.update { $0 += 1 }
                if begun.value == 1 { gate.wait() }
                defer { ended.update { $0 += 1 } }
                return fsync(fd)
            })
        let core = try CoreHarness(
            cities: [
                "Oslo": sampleObservation("Oslo", id: 3_143_244, lat: 59.91, lon: 10.75),
                "Bergen": sampleObservation("Bergen", id: 3_161_732, lat: 60.39, lon: 5.32),
            ], cacheTTL: .seconds(3600), store: store)
        let path = directory.file("weatherd.sock")
        let listening = Observed(false)
        let server = SocketServer(
            settings: .init(path: path, mode: 0o600, maxClients: 4), handler: core.handler, group: loop, logger: silentLogger,
            onListening: { listening.update { $0 = true } })
        let group = ServiceGroup(configuration: .init(services: [.init(service: server)], logger: silentLogger))
        let running = Task { try await group.run() }
        defer { gate.signal() }

        _ = try await listening.wait(for: "the server to listen") { $0 ? () : nil }
        let adder = try RawSocket(path: path)
        let searcher = try RawSocket(path: path)
        let search = RPCMessage.request(id: 1, method: "search", params: ["city": "Oslo"])
        #expect(try await reply(to: search, on: searcher)["result"]?["properties"]?["name"] == "Oslo")

        try adder.send(RPCMessage.request(id: 2, method: "cities.add", params: ["city": "Bergen"]))
        _ = try await begun.wait(for: "the city list's write to flush") { $0 >= 1 ? () : nil }
        let cached = try await reply(to: RPCMessage.request(id: 3, method: "search", params: ["city": "Oslo"]), on: searcher)
        #expect(cached["result"]?["properties"]?["name"] == "Oslo", "\(cached.serialized)")
        #expect(ended.value == 0, "answered while the write still waits for the disk")

        gate.signal()
        let line = try #require(try await adder.readLine(), "no reply to cities.add")
        let added = try JSONValue.parse(Array(line.utf8))
        #expect(added["result"] == .object(["cities": .array(["Bergen"])]), "\(added.serialized)")
        #expect(ended.value >= 2, "the reply came before the file and its directory were flushed")
        #expect(try FileCityStore(directory: directory.path, logger: silentLogger).load() == CityChanges(added: ["Bergen"]))

        await group.triggerGracefulShutdown()
        try await running.value
        try await loop.shutdownGracefully()
        try await pool.shutdownGracefully()
    }

    private func reply(to request: String, on socket: RawSocket) async throws -> JSONValue {
        try socket.send(request)
        let line = try #require(try await socket.readLine(), "the server closed the connection instead of answering \(request)")
        return try JSONValue.parse(Array(line.utf8))
    }
}
