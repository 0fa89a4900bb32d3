import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Careless and hostile clients against the real daemon: none of them can keep a slot after it left,
/// hold other clients back, grow the daemon's memory without bound, or delay its shutdown.
@Suite("Reliability: hostile clients", .processTimeLimit)
struct HostileClientReliabilityTests {
    private static let cities = ["London", "Paris", "Berlin", "Tokyo"]

    @Test("clients that flood without reading and then close give their slots back at once")
    func floodAndClose() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.maxClients = 3
        let daemon = try await DaemonProcess.start(setup)
        let before = try ProcessMemory(pid: daemon.pid).residentKiB
        var flooded = 0
        let rounds = ReliabilityRun.current.count(3)
        for _ in 0..<rounds {
            // Each takes a slot, subscribes, has a locate and a search running, stops being read
            // once 64 replies wait for it, and leaves, some of them in the middle of a line.
            let clients = try await daemon.admittedClients(3)
            for client in clients {
                try client.send(requestLine(1, "watch"))
                try client.send(requestLine(2, "locate", ["timeout": .integer(60)]))
                try client.send(requestLine(3, "search", ["city": "London"]))
                flooded += await client.flood(requestLine(4, "state"), count: 5000)
            }
            for client in clients { client.shutdown() }
        }
        for client in try await daemon.admittedClients(3) { client.shutdown() }
        let after = try ProcessMemory(pid: daemon.pid).residentKiB
        print(
            "flood-and-close: \(flooded) requests sent unread by \(3 * rounds) clients; RSS \(before) KiB before, \(after) KiB after; crashes: 0"
        )
        #expect(after - before < 64 * 1024, "RSS grew from \(before) to \(after) KiB")
        _ = try await daemon.expectPromptShutdown()
    }

    @Test(
        "with flooders, silent watchers, half-open and half-closed clients connected, others are served and SIGTERM ends the daemon (exit 0)"
    )
    func everythingAtOnce() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        setup.maxClients = 12
        let daemon = try await DaemonProcess.start(setup)

        // Flood and stay: requests keep coming, replies are never read.
        let flooders = try (0..<3).map { _ in try RawSocket(path: daemon.socketPath) }
        var flooded = 0
        for flooder in flooders { flooded += await flooder.flood(requestLine(1, "search", ["city": "Paris"]), count: 5000) }
        // Watchers that never read.
        let silent = try (0..<3).map { _ in try RawSocket(path: daemon.socketPath) }
        for watcher in silent { try watcher.send(requestLine(1, "watch")) }
        // Half-open: half a line, then nothing.
        let halfOpen = try (0..<2).map { _ in try RawSocket(path: daemon.socketPath) }
        for client in halfOpen { try client.sendPartial(#"{"jsonrpc":"2.0","id":1,"meth"#) }
        // Half-closed without reading: requests sent, sending side shut, replies never read.
        let halfClosed = try RawSocket(path: daemon.socketPath)
        _ = await halfClosed.flood(requestLine(1, "state"), count: 2000)
        halfClosed.closeWriting()

        // Everyone else is still served, and their searches change what the silent watchers watch.
        for (index, city) in Self.cities.enumerated() {
            let feature = try await daemon.call("search", ["city": .string(city)])
            #expect(feature["type"] == "Feature", "search \(index): \(feature.serialized)")
        }
        #expect(try await daemon.call("version")["protocol"] == .integer(1))
        print("everything at once: \(flooded) requests flooded by 3 clients, 3 silent watchers, 2 half-open, 1 half-closed")
        _ = try await daemon.expectPromptShutdown()
        withExtendedLifetime((flooders, silent, halfOpen, halfClosed)) {}
    }

    @Test("a watcher that never reads while hundreds of overlays changes happen: others are served promptly, memory stays bounded")
    func silentWatcher() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))
        let silent = try RawSocket(path: daemon.socketPath)
        try silent.send(requestLine(1, "watch"))
        // Warm the cache, then measure.
        for city in Self.cities { _ = try await daemon.call("search", ["city": .string(city)]) }
        let before = try ProcessMemory(pid: daemon.pid).residentKiB
        let changes = ReliabilityRun.current.count(1000)
        var latencies: [Duration] = []
        let seq: Int = try await daemon.withConnection { connection in
            var last = -1
            for i in 0..<changes {
                let started = ContinuousClock.now
                _ = try await connection.call("search", ["city": .string(Self.cities[i % Self.cities.count])])
                latencies.append(ContinuousClock.now - started)
            }
            last = try await connection.call("overlays")["seq"]?.intValue ?? -1
            return last
        }
        let after = try ProcessMemory(pid: daemon.pid).residentKiB
        latencies.sort()
        print(
            """
            silent watcher: \(changes) overlays changes (seq \(seq)) with a watcher that never reads; \
            search p50 \(latencies[latencies.count / 2]), max \(latencies.last!); RSS \(before) KiB before, \(after) KiB after
            """)
        #expect(seq >= changes, "each search changed the overlays")
        #expect(after - before < 32 * 1024, "RSS grew from \(before) to \(after) KiB")
        // The watcher reads at last: no backlog of hundreds of notifications, and the newest
        // overlays among what it gets.
        silent.closeWriting()
        var lines: [String] = []
        while let line = try await silent.readLine() { lines.append(line) }
        let overlays = lines.compactMap { try? JSONValue.parse(Array($0.utf8)) }.filter { $0["method"] == "overlays" }
        #expect(overlays.count < changes / 2, "\(overlays.count) overlays notifications: a backlog")
        #expect(overlays.last?["params"]?["seq"]?.intValue == seq, "the newest overlays arrive last")
        print("silent watcher: got \(overlays.count) overlays notifications of \(changes) changes when it read")
        _ = try await daemon.expectPromptShutdown()
    }

    @Test("hundreds of connections opened and closed in every state: every slot free afterwards, memory bounded")
    func churn() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        setup.maxClients = 16
        let daemon = try await DaemonProcess.start(setup)
        let before = try ProcessMemory(pid: daemon.pid).residentKiB
        let connections = ReliabilityRun.current.count(400)
        var busy = 0
        for round in 0..<(connections / 8) {
            let clients = try (0..<8).map { _ in try RawSocket(path: daemon.socketPath) }
            // Clients of the last round may still hold their slots for a moment: a client turned
            // away busy finds its connection closed, and counts as busy.
            for (index, client) in clients.enumerated() {
                do {
                    switch (round + index) % 8 {
                    case 0: break  // connect and leave
                    case 1: try client.sendPartial(#"{"jsonrpc":"2.0","id":1,"method":"sea"#)  // mid-line
                    case 2: try client.send(requestLine(1, "watch"))  // a subscription
                    case 3: try client.send(requestLine(1, "search", ["city": "Tokyo"]))  // a lookup running
                    case 4: try client.send(requestLine(1, "locate", ["timeout": .integer(30)]))  // waiting for a fix
                    case 5: _ = await client.flood(requestLine(1, "overlays"), count: 300)  // replies queued
                    case 6: try client.send(requestLine(1, "region", ["center": .object(["lat": .double(51.5), "lon": .double(-0.1)])]))
                    default:
                        try client.send(requestLine(1, "version"))
                        if (try await client.readLine() ?? "").contains("-32007") { busy += 1 }
                    }
                } catch let error as ChildProcessError where error.message.hasPrefix("send:") {
                    busy += 1
                }
            }
            for client in clients { client.shutdown() }
        }
        for client in try await daemon.admittedClients(16) { client.shutdown() }
        let after = try ProcessMemory(pid: daemon.pid).residentKiB
        print(
            "churn: \(connections) connections opened and closed (\(busy) turned away busy); RSS \(before) KiB before, \(after) KiB after")
        #expect(after - before < 32 * 1024, "RSS grew from \(before) to \(after) KiB")
        _ = try await daemon.expectPromptShutdown()
    }
}
