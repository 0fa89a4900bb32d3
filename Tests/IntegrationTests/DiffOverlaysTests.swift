import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// The overlays as a diff watcher has them: the first full collection with every diff applied.
private struct AppliedOverlays {
    var seq: Int?
    var focus = "null"
    /// Each feature's JSON text, by id.
    var features: [String: String] = [:]
    var full = 0
    var diffs = 0

    /// Takes in one notification line; returns whether it was an overlays one.
    mutating func apply(_ message: JSONValue) throws -> Bool {
        let params = message.params
        switch message.method {
        case "overlays":
            full += 1
            seq = params?["seq"]?.intValue
            focus = params?["focus"]?.serialized ?? "null"
            features = Self.byID(params?["features"])
        case "overlays.diff":
            diffs += 1
            let base = try #require(params?["base"]?.intValue)
            #expect(base == seq, "a diff from seq \(base), but the client has \(seq.map(String.init) ?? "nothing")")
            for id in params?["removed"]?.arrayValue ?? [] {
                #expect(
                    features.removeValue(forKey: id.stringValue ?? "") != nil, "removed \(id.serialized), which the client did not have")
            }
            for (id, text) in Self.byID(params?["changed"]) {
                #expect(features[id] != nil, "changed \(id), which the client did not have")
                features[id] = text
            }
            for (id, text) in Self.byID(params?["added"]) {
                #expect(features[id] == nil, "added \(id), which the client had")
                features[id] = text
            }
            seq = params?["seq"]?.intValue
            focus = params?["focus"]?.serialized ?? "null"
        default:
            return false
        }
        return true
    }

    func matches(_ overlays: JSONValue) -> Bool {
        seq == overlays["seq"]?.intValue && focus == (overlays["focus"]?.serialized ?? "null")
            && features == Self.byID(overlays["features"])
    }

    private static func byID(_ features: JSONValue?) -> [String: String] {
        var byID: [String: String] = [:]
        for feature in features?.arrayValue ?? [] { byID[feature["id"]?.stringValue ?? ""] = feature.serialized }
        return byID
    }
}

/// A client on the real socket that watches with `diff: true` and applies what it gets.
private final class DiffReader {
    let socket: RawSocket
    var applied = AppliedOverlays()

    init(socketPath: String, replay: Bool = true) async throws {
        socket = try RawSocket(path: socketPath)
        try socket.send(#"{"jsonrpc":"2.0","id":1,"method":"watch","params":{"diff":true,"replay":\#(replay)}}"#)
        let reply = try #require(try await socket.readLine(), "no watch reply")
        #expect(reply.contains(#""id":1"#) && reply.contains(#""topics""#), "\(reply)")
    }

    /// Reads and applies notifications until it has the collection with `seq`; returns how many
    /// overlays notifications that took.
    @discardableResult
    func read(untilSeq target: Int) async throws -> Int {
        var count = 0
        while (applied.seq ?? -1) < target {
            let line = try #require(try await socket.readLine(), "the daemon closed the connection")
            if try applied.apply(try JSONValue.parse(Array(line.utf8))) { count += 1 }
        }
        return count
    }
}

@Suite("watch with diff over the socket")
struct DiffOverlaysTests {
    @Test("the first overlays is full, then diffs; applying them gives what `overlays` answers, also to a slow reader")
    func diffsOverTheSocket() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay, cities: ["London", "Zocca"]))
        let settled = try await Watcher.start(socketPath: daemon.socketPath)
        try await settled.next("the city round to settle", where: isSettledState)
        await settled.close()

        let reader = try await DiffReader(socketPath: daemon.socketPath)
        var current = try await daemon.call("overlays")
        try await reader.read(untilSeq: current["seq"]?.intValue ?? 0)
        #expect(reader.applied.full == 1 && reader.applied.diffs == 0, "the replay is the whole collection")
        #expect(reader.applied.matches(current))

        // A watcher that reads nothing until the end (what its socket buffered, then the latest: its
        // diffs must chain), and one that watches without replay.
        let slow = try await DiffReader(socketPath: daemon.socketPath)
        let quiet = try await DiffReader(socketPath: daemon.socketPath, replay: false)

        let steps: [(String, JSONObject)] = [
            ("search", ["city": "Tokyo"]), ("search", ["city": "Paris"]), ("cities.add", ["city": "Seoul"]),
            ("search", ["city": "Paris"]), ("cities.remove", ["city": "Zocca"]), ("search", ["city": "Zocca"]),
            ("cities.remove", ["city": "London"]), ("search", ["city": "Berlin"]),
        ]
        for (method, params) in steps {
            _ = try await daemon.call(method, params)
            current = try await daemon.call("overlays")
            try await reader.read(untilSeq: current["seq"]?.intValue ?? 0)
            #expect(reader.applied.matches(current), "after \(method) \(params): \(current.serialized)")
        }
        #expect(reader.applied.full == 1, "after the first, only diffs (each is shorter than the collection here)")
        #expect(reader.applied.diffs >= steps.count)

        let endSeq = current["seq"]?.intValue ?? 0
        try await slow.read(untilSeq: endSeq)
        #expect(slow.applied.matches(current))
        #expect(slow.applied.full == 1)
        try await quiet.read(untilSeq: endSeq)
        #expect(quiet.applied.full == 1, "without replay, the first overlays notification is full too")
        #expect(quiet.applied.matches(current))
    }

    @Test("the WebSocket gets the same: a full collection, then a diff from it")
    func diffsOverTheWebSocket() async throws {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay, cities: ["London"])
        setup.webLines = [#"listen = "127.0.0.1:0""#]
        let daemon = try await DaemonProcess.start(setup)
        let settled = try await Watcher.start(socketPath: daemon.socketPath)
        try await settled.next("the city round to settle", where: isSettledState)
        await settled.close()
        let port = try await daemon.webPort()
        let watcher = try await WebSocketClient.connect(port: port)
        #expect(try await watcher.call(1, "watch", ["diff": .bool(true), "topics": .array(["overlays"])])["result"] != nil)
        var applied = AppliedOverlays()
        while applied.seq == nil { _ = try applied.apply(try await watcher.receiveMessage()) }
        #expect(applied.full == 1)

        _ = try await daemon.call("search", ["city": "Paris"])
        let current = try await daemon.call("overlays")
        while (applied.seq ?? -1) < (current["seq"]?.intValue ?? 0) { _ = try applied.apply(try await watcher.receiveMessage()) }
        #expect(applied.full == 1 && applied.diffs == 1)
        #expect(applied.matches(current))
        _ = try await daemon.expectPromptShutdown()
        withExtendedLifetime(replay) {}
    }
}
