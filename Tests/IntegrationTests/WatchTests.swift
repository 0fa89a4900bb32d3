import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `watch`: replay, topics, and watchers that do not read.
@Suite("watch")
struct WatchTests {
    @Test("watch replays the current state and overlays; replay false sends only later changes; topics filter")
    func replayAndTopics() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay, cities: ["London"]))
        let first = try await Watcher.start(socketPath: daemon.socketPath)
        try await first.next("the city round to settle", where: isSettledState)
        let current = try await daemon.call("overlays")
        #expect(current.featureIDs == [Fixtures.londonID])

        // replay (the default): state and overlays right after the reply.
        let replaying = try await Watcher.start(socketPath: daemon.socketPath)
        #expect(replaying.watchReply?["topics"] == JSONValue.array(["overlays", "state"]))
        let (state, _) = try await replaying.next("the replayed state") { $0.isStateNotification }
        #expect(state.params?["phase"] == "populated")
        #expect(state.params?["input"] == JSONValue.object(["kind": "cities"]))
        let (overlays, _) = try await replaying.next("the replayed overlays") { $0.isOverlaysNotification }
        #expect(overlays.params == current)

        let quiet = try await Watcher.start(socketPath: daemon.socketPath, params: ["replay": .bool(false)])
        let stateOnly = try await Watcher.start(socketPath: daemon.socketPath, params: ["topics": .array(["state"])])
        #expect(stateOnly.watchReply?["topics"] == JSONValue.array(["state"]))

        _ = try await daemon.call("search", ["city": "Tokyo"])
        let isTokyoSettled: @Sendable (JSONValue) -> Bool = {
            isSettledState($0) && $0.params?["input"]?["city"] == "Tokyo"
        }

        // No replay: the first thing it gets is the change the search made.
        let (firstChange, skipped) = try await quiet.next("a notification") { _ in true }
        #expect(skipped.isEmpty)
        #expect(firstChange.isStateNotification, "\(firstChange.serialized)")
        #expect(firstChange.params?["running"]?.boolValue == true)
        #expect(firstChange.params?["input"]?["city"] == "Tokyo")
        try await quiet.next("Tokyo to settle", where: isTokyoSettled)
        let quietOverlays = quiet.messages.filter { $0.isOverlaysNotification }
        #expect(quietOverlays.count == 1, "only the overlays of the search: \(describe(quietOverlays))")
        #expect(quietOverlays.first?.params?["seq"]?.intValue == (current["seq"]?.intValue ?? -1) + 1)

        // The replaying watcher got the same change after its replay.
        try await replaying.next("Tokyo to settle", where: isTokyoSettled)
        #expect(replaying.messages.filter { $0.isOverlaysNotification }.count == 2)

        // Topics: state only, never overlays (the search's overlays came before its settled state).
        try await stateOnly.next("Tokyo to settle", where: isTokyoSettled)
        let stateOnlyMessages = stateOnly.messages
        #expect(stateOnlyMessages.allSatisfy { $0.isStateNotification }, "\(describe(stateOnlyMessages))")
        #expect(stateOnlyMessages.first?.params?["input"] == JSONValue.object(["kind": "cities"]), "replayed state first")

        for watcher in [first, replaying, quiet, stateOnly] { await watcher.close() }
    }

    @Test("a watcher that does not read holds nobody back and later gets the latest, not a backlog")
    func slowWatcher() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        // Ten watched cities make each overlays notification several KiB.
        let cities = ["London", "Zocca", "Seoul", "Tokyo", "Paris", "New York", "Berlin", "Hamilton", "Minsk", "Reykjavik"]
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay, cities: cities))
        let settledWatcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await settledWatcher.next("the city round to settle", where: isSettledState)
        await settledWatcher.close()
        let start = try await daemon.call("overlays")
        #expect(start.featureIDs.count == cities.count)

        // Enough changes that their notifications are several times what the socket can buffer
        // (the daemon's send buffer plus NIO's 64 KiB write buffer).
        let overlaysBytes = start.serialized.utf8.count
        let sendBuffer =
            (try? String(contentsOfFile: "/proc/sys/net/core/wmem_default", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 212_992
        let searches = min(2000, max(200, 4 * (sendBuffer + 65536) / overlaysBytes))

        let slow = try RawSocket(path: daemon.socketPath)
        try slow.send(#"{"jsonrpc":"2.0","id":1,"method":"watch","params":{}}"#)
        let reply = try await slow.readLine()
        #expect(reply?.contains(#""id":1"#) == true, "\(reply ?? "nil")")
        // From here the slow client reads nothing until the searches are done.

        let socket = daemon.socketPath
        let completed = try await withTimeout(safetyDeadline, "\(searches) searches by another client") {
            try await DaemonConnection.with(socketPath: socket) { connection in
                var completed = 0
                for index in 0..<searches {
                    let city = index.isMultiple(of: 2) ? "Tokyo" : "Paris"
                    let feature = try await connection.call("search", ["city": .string(city)])
                    if feature["properties"]?["name"]?.stringValue == city { completed += 1 }
                }
                return completed
            }
        }
        #expect(completed == searches)
        let end = try await daemon.call("overlays")
        let endSeq = try #require(end["seq"]?.intValue)
        let published = endSeq - (start["seq"]?.intValue ?? 0)
        #expect(published >= searches)

        // Now the slow client reads: what the socket buffers held, then the latest overlays.
        var overlaysReceived = 0
        var statesReceived = 0
        var lastSeq = -1
        while lastSeq < endSeq {
            guard let line = try await slow.readLine() else {
                Issue.record("the daemon closed the slow watcher's connection")
                break
            }
            let message = try JSONValue.parse(Array(line.utf8))
            if message.isOverlaysNotification {
                overlaysReceived += 1
                lastSeq = message.params?["seq"]?.intValue ?? lastSeq
            } else if message.isStateNotification {
                statesReceived += 1
            }
        }
        // At least the overlays the searches left: a later change (an alert or air quality looked
        // up for the places the searches showed) may have followed them.
        #expect(lastSeq >= endSeq, "the slow watcher ends with the latest overlays")
        #expect(
            overlaysReceived < published / 2,
            "got \(overlaysReceived) of \(published) overlays: a backlog, not the latest (\(overlaysBytes) bytes each)")
        #expect(statesReceived < searches, "got \(statesReceived) states; \(searches) searches published about \(2 * searches)")
        // The daemon still answers, and the last state is settled.
        let state = try await daemon.call("state")
        #expect(state["running"]?.boolValue == false)
        #expect(state["input"]?["city"] == (searches.isMultiple(of: 2) ? "Paris" : "Tokyo"))
    }
}
