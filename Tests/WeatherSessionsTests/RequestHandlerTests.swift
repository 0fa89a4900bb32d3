import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import WeatherSessions

/// A RequestHandler over a real engine and hub (no socket): lines in, queued lines out.
struct HandlerHarness {
    let hub = NotificationHub()
    let engine: EngineHarness
    let handler: RequestHandler

    init(cities: [String] = [], cacheTTL: Duration = .zero) throws {
        engine = try EngineHarness(cities: cities, cacheTTL: cacheTTL, publisher: hub)
        handler = RequestHandler(
            engine: engine.engine, location: locationService(on: engine), regions: regionSearches(on: engine), hub: hub,
            logger: silentLogger)
        try engine.scriptFixtures()
    }

    /// Sends one line and returns every line queued in `outbox` since, parsed.
    func send(_ line: String, _ outbox: Outbox = Outbox()) async throws -> [JSONValue] {
        await handler.handle(line: Array(line.utf8), outbox: outbox)
        return try drained(outbox)
    }

    /// The one reply to `line`.
    func reply(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let lines = try await send(line)
        try #require(lines.count == 1, "expected one line, got \(lines.map(\.serialized))", sourceLocation: sourceLocation)
        return lines[0]
    }

    /// The error object of the reply to `line`.
    func error(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let reply = try await reply(line, sourceLocation: sourceLocation)
        return try #require(reply["error"], "expected an error, got \(reply.serialized)", sourceLocation: sourceLocation)
    }

    func drained(_ outbox: Outbox) throws -> [JSONValue] {
        var lines: [JSONValue] = []
        while let line = outbox.next() {
            #expect(!line.contains("\n"), "one JSON text per line")
            lines.append(try JSONValue.parse(Array(line.utf8)))
        }
        return lines
    }
}

/// The lines an outbox's writer wrote, a writer that writes each reply the moment it is queued (as
/// a connection's event loop does) and leaves notifications until then. As it writes the reply to
/// `id`, the client's other connection makes a change: the hub publishes `state` then and there.
private final class WrittenAtOnce: Sendable {
    private let written = Mutex<[String]>([])

    init(_ outbox: Outbox, hub: NotificationHub, publishing state: DaemonState, asReplyTo id: Int) {
        outbox.write(whenSignalled: { [self] signal in
            guard case .lines = signal else { return }
            while let line = outbox.next() {
                written.withLock { $0.append(line) }
                if line.contains(#""id":\#(id)"#) { hub.publish(state: state) }
            }
        })
    }

    var lines: [String] { written.withLock { $0 } }
}

private func request(_ id: Int, _ method: String, _ params: String = "{}") -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
}

@Suite("RequestHandler: methods", .timeLimit(.minutes(1)))
struct RequestHandlerMethodTests {
    @Test("version answers {\"version\", \"protocol\": 1}")
    func version() async throws {
        let p = try HandlerHarness()
        let reply = try await p.reply(request(1, "version"))
        #expect(reply.serialized == #"{"jsonrpc":"2.0","id":1,"result":{"version":"\#(WeatherdVersion.current)","protocol":1}}"#)
    }

    @Test("search answers the Feature of the city, and keeps the request's id")
    func search() async throws {
        let p = try HandlerHarness()
        let reply = try await p.reply(#"{"jsonrpc":"2.0","id":"req-7","method":"search","params":{"city":"  London  "}}"#)
        #expect(reply["id"] == "req-7")
        #expect(reply["result"]?.serialized == Fixture.specLondonFeature)
        #expect(await p.engine.engine.currentState.input == .text(city: "London"))
    }

    @Test(
        "a search's reply is the text of RPCMessage.result, whatever the id, first and from the kept feature text",
        arguments: [#""req \"7\"""#, "7", "1.50", "-0", "null", #""ünï""#])
    func searchReplyText(id: String) async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        var replies: [String] = []
        for _ in 0..<3 {
            await p.handler.handle(
                line: Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"search","params":{"city":"London"}}"#.utf8), outbox: outbox)
            replies.append(try #require(outbox.next()))
        }
        let feature = try #require(try JSONValue.parse(Array(replies[0].utf8))["result"])
        let expected = RPCMessage.result(id: try JSONValue.parse(Array(id.utf8)), feature).serialized
        #expect(replies == [expected, expected, expected])
        #expect(feature.serialized == Fixture.specLondonFeature)
    }

    @Test("a batch of searches is the array of their replies' texts")
    func searchBatchText() async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        let line = "[" + request(1, "search", #"{"city":"London"}"#) + "," + request(2, "version") + "]"
        await p.handler.handle(line: Array(line.utf8), outbox: outbox)
        let reply = try #require(outbox.next())
        #expect(reply == (try JSONValue.parse(Array(reply.utf8))).serialized)
        #expect(try JSONValue.parse(Array(reply.utf8)).arrayValue?.count == 2)
    }

    @Test("search for an unknown city is error -32001 with data.name not_found")
    func searchNotFound() async throws {
        let p = try HandlerHarness()
        let reply = try await p.reply(request(2, "search", #"{"city":"Atlantis"}"#))
        #expect(
            reply.serialized
                == #"{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"city not found: Atlantis","data":{"name":"not_found","city":"Atlantis"}}}"#
        )
    }

    @Test("overlays answers the current FeatureCollection")
    func overlays() async throws {
        let p = try HandlerHarness()
        _ = try await p.send(request(1, "search", #"{"city":"London"}"#))
        let result = try #require(try await p.reply(request(2, "overlays"))["result"])
        #expect(result.objectValue?.keys == ["type", "seq", "focus", "features"])
        #expect(result["type"] == "FeatureCollection")
        #expect(result["seq"] == .integer(1))
        #expect(result["focus"]?.serialized == "[-0.1257,51.5085]")
        #expect(result["features"]?.arrayValue?.map(\.serialized) == [Fixture.specLondonFeature])
    }

    @Test("state answers the current state with every field of the spec")
    func state() async throws {
        let p = try HandlerHarness()
        let result = try #require(try await p.reply(request(1, "state"))["result"])
        #expect(
            result.objectValue?.keys == [
                "running", "phase", "pending", "input", "error", "gps", "location", "location_sources", "budget", "providers", "services",
                "updated_at",
            ])
        #expect(result["budget"]?.serialized == #"{"requests_per_minute":1000,"used":0,"blocked_until":null}"#)
        #expect(result["running"] == .bool(false))
        #expect(result["phase"] == "empty")
        #expect(result["gps"]?.serialized == #"{"enabled":false,"connected":false,"last_fix":null}"#)
        #expect(result["location"] == .null)
        #expect(
            result["location_sources"]?.serialized
                == #"[{"name":"gpsd","enabled":false,"connected":false,"last_fix_at":null},"#
                + #"{"name":"owntracks","enabled":false,"connected":false,"last_fix_at":null},"#
                + #"{"name":"geoclue","enabled":false,"connected":false,"last_fix_at":null},"#
                + #"{"name":"client","enabled":true,"connected":true,"last_fix_at":null}]"#)
        #expect(result["updated_at"]?.stringValue?.hasSuffix("Z") == true)
    }

    @Test("watch answers {\"topics\": [...]}; unwatch answers {\"topics\": []}")
    func watchReplies() async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        let watch = try await p.send(request(1, "watch", #"{"replay":false}"#), outbox)
        #expect(watch.first?.serialized == #"{"jsonrpc":"2.0","id":1,"result":{"topics":["overlays","state"]}}"#)
        let unwatch = try await p.send(request(2, "unwatch"), outbox)
        #expect(unwatch.map(\.serialized) == [#"{"jsonrpc":"2.0","id":2,"result":{"topics":[]}}"#])
    }

    @Test("cities answers {\"cities\": [...]}; add and remove answer the list after storing it")
    func cities() async throws {
        let p = try HandlerHarness(cities: ["London,GB"])
        #expect(try await p.reply(request(1, "cities")).serialized == #"{"jsonrpc":"2.0","id":1,"result":{"cities":["London,GB"]}}"#)
        #expect(
            try await p.reply(request(2, "cities.add", #"{"city":"Zocca"}"#))["result"]?.serialized == #"{"cities":["London,GB","Zocca"]}"#)
        #expect(p.engine.store.stored.added == ["Zocca"])
        #expect(try await p.reply(request(3, "cities.remove", #"{"city":"London,GB"}"#))["result"]?.serialized == #"{"cities":["Zocca"]}"#)
        #expect(p.engine.store.stored == CityChanges(added: ["Zocca"], removed: ["London,GB"]))
    }

    @Test("cities.remove of a city that is not watched is -32602")
    func removeUnwatched() async throws {
        let p = try HandlerHarness()
        let error = try await p.error(request(1, "cities.remove", #"{"city":"Paris"}"#))
        #expect(error["code"] == .integer(-32602))
        #expect(error["data"]?["name"] == "invalid_params")
    }
}

@Suite("RequestHandler: protocol errors", .timeLimit(.minutes(1)))
struct RequestHandlerErrorTests {
    @Test("a line that is not JSON is -32700 with id null", arguments: ["{", "hello", #"{"jsonrpc":"2.0",}"#, ""])
    func parseError(_ line: String) async throws {
        let p = try HandlerHarness()
        let reply = try await p.reply(line)
        #expect(reply["id"] == .null)
        #expect(reply["error"]?["code"] == .integer(-32700))
        #expect(reply["error"]?["data"]?["name"] == "parse_error")
    }

    @Test("a message that is not an object is -32600 with id null", arguments: ["42", #""version""#, "null", "true"])
    func notAnObject(_ line: String) async throws {
        let p = try HandlerHarness()
        let reply = try await p.reply(line)
        #expect(reply["id"] == .null)
        #expect(reply["error"]?["code"] == .integer(-32600))
        #expect(reply["error"]?["data"]?["name"] == "invalid_request")
    }

    @Test(
        "a wrong or missing jsonrpc member is -32600 with the request's id",
        arguments: [
            #"{"jsonrpc":"1.0","id":3,"method":"version"}"#, #"{"id":3,"method":"version"}"#, #"{"jsonrpc":2.0,"id":3,"method":"version"}"#,
        ])
    func wrongVersion(_ line: String) async throws {
        let p = try HandlerHarness()
        let reply = try await p.reply(line)
        #expect(reply["id"] == .integer(3))
        #expect(reply["error"]?["code"] == .integer(-32600))
    }

    @Test(
        "an id that is not a string, number or null is -32600",
        arguments: [
            #"{"jsonrpc":"2.0","id":[1],"method":"version"}"#, #"{"jsonrpc":"2.0","id":{"a":1},"method":"version"}"#,
            #"{"jsonrpc":"2.0","id":true,"method":"version"}"#,
        ])
    func badID(_ line: String) async throws {
        let p = try HandlerHarness()
        let reply = try await p.reply(line)
        #expect(reply["id"] == .null)
        #expect(reply["error"]?["code"] == .integer(-32600))
    }

    @Test(
        "a number id is echoed with exactly the characters sent, in a reply and in an error",
        arguments: [
            "18446744073709551616", "-18446744073709551617", "1e400", "0.10", "1.0", "-0", "123456789012345678901234567890.5", "7",
        ])
    func numberIDEchoedExactly(_ id: String) async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        await p.handler.handle(line: Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"version"}"#.utf8), outbox: outbox)
        await p.handler.handle(line: Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"nope"}"#.utf8), outbox: outbox)
        let result = try #require(outbox.next())
        let error = try #require(outbox.next())
        #expect(result.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id),"result":"#), "\(result)")
        #expect(error.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id),"error":{"code":-32601"#), "\(error)")
    }

    @Test("a number param may be written in any JSON form; one beyond a double's range is -32602")
    func numberParamForms() async throws {
        let p = try HandlerHarness()
        let accepted = try await p.reply(request(1, "region", #"{"center":{"lat":4.50e1,"lon":-0},"span":{"lat":2.0,"lon":0.20e1}}"#))
        #expect(accepted["result"] == .object(["accepted": .bool(true)]), "\(accepted.serialized)")
        for params in [#"{"center":{"lat":1e400,"lon":0}}"#, #"{"center":{"lat":0,"lon":-1E999}}"#] {
            let error = try await p.error(request(2, "region", params))
            #expect(error["code"] == .integer(-32602), "\(params): \(error.serialized)")
        }
    }

    @Test("a missing or non-string method is -32600", arguments: [#"{"jsonrpc":"2.0","id":4}"#, #"{"jsonrpc":"2.0","id":4,"method":7}"#])
    func badMethod(_ line: String) async throws {
        let p = try HandlerHarness()
        #expect(try await p.error(line)["code"] == .integer(-32600))
    }

    @Test("an unknown method is -32601", arguments: ["frobnicate", "Search", "cities.clear", "regions"])
    func unknownMethod(_ method: String) async throws {
        let p = try HandlerHarness()
        let error = try await p.error(request(5, method))
        #expect(error["code"] == .integer(-32601))
        #expect(error["data"]?["name"] == "method_not_found")
        #expect(error["message"] == .string("method not found: \(method)"))
    }

    @Test(
        "bad params are -32602",
        arguments: [
            request(1, "search"), request(1, "search", #"{"city":""}"#), request(1, "search", #"{"city":"   "}"#),
            request(1, "search", #"{"city":5}"#), request(1, "search", #"{"city":"Lon\u0000don"}"#),
            request(1, "search", #"{"city":"\#(String(repeating: "x", count: 201))"}"#),
            request(1, "search", #"{"city":"London","units":"metric"}"#), request(1, "search", #"["London"]"#),
            request(1, "version", #"{"verbose":true}"#), request(1, "state", #"{"x":null}"#),
            request(1, "watch", #"{"topics":["weather"]}"#), request(1, "watch", #"{"topics":"state"}"#),
            request(1, "watch", #"{"topics":[1]}"#), request(1, "watch", #"{"replay":"yes"}"#), request(1, "watch", #"{"diff":1}"#),
            request(1, "cities.add", #"{"city":""}"#), request(1, "cities.add", #"{}"#),
        ])
    func badParams(_ line: String) async throws {
        let p = try HandlerHarness()
        let error = try await p.error(line)
        #expect(error["code"] == .integer(-32602))
        #expect(error["data"]?["name"] == "invalid_params")
        #expect(p.engine.upstream.fetchCount == 0)
        #expect(p.engine.store.saveCount == 0)
    }

    @Test("every error object carries data.name")
    func errorsCarryName() async throws {
        let p = try HandlerHarness()
        for line in ["{", "42", request(1, "nope"), request(1, "search"), request(1, "search", #"{"city":"Atlantis"}"#)] {
            let error = try await p.error(line)
            #expect(error["data"]?["name"]?.stringValue?.isEmpty == false, "\(error.serialized)")
            #expect(error.objectValue?.keys == ["code", "message", "data"])
        }
    }
}

@Suite("RequestHandler: batches and notifications", .timeLimit(.minutes(1)))
struct RequestHandlerBatchTests {
    @Test("a batch is answered with one array of replies in request order")
    func batch() async throws {
        let p = try HandlerHarness()
        let lines = try await p.send("[\(request(1, "version")),\(request(2, "search", #"{"city":"London"}"#)),\(request(3, "nope"))]")
        #expect(lines.count == 1)
        let replies = try #require(lines.first?.arrayValue)
        #expect(replies.map { $0["id"] } == [.integer(1), .integer(2), .integer(3)])
        #expect(replies[1]["result"]?["id"] == "owm:2643743")
        #expect(replies[2]["error"]?["code"] == .integer(-32601))
    }

    @Test("the elements of a batch enter the stream in array order, one after another")
    func batchOrder() async throws {
        let p = try HandlerHarness()
        let lines = try await p.send(
            "["
                + [
                    request(1, "cities.add", #"{"city":"Zocca"}"#), request(2, "cities.remove", #"{"city":"Zocca"}"#),
                    request(3, "cities.add", #"{"city":"London"}"#), request(4, "cities.add", #"{"city":"Zocca"}"#),
                ].joined(separator: ",") + "]")
        let replies = try #require(lines.first?.arrayValue)
        #expect(replies.map { $0["result"]?["cities"]?.serialized } == [#"["Zocca"]"#, "[]", #"["London"]"#, #"["London","Zocca"]"#])
    }

    @Test("a batch's lookups run concurrently, but its searches enter the stream in array order: the last one wins")
    func batchSearchOrder() async throws {
        let p = try HandlerHarness()
        let london = p.engine.upstream.script(.city("London"), .success(try Fixture.londonObservation()), gated: true)
        let batch = Task {
            try await p.send("[\(request(1, "search", #"{"city":"London"}"#)),\(request(2, "search", #"{"city":"Zocca"}"#))]")
        }
        // Zocca's lookup runs while London's is still held.
        await untilCancelled { [upstream = p.engine.upstream] in await upstream.waitForFetches(2) }
        london.open()
        let replies = try #require(try await batch.value.first?.arrayValue)
        #expect(replies.map { $0["result"]?["id"] } == ["owm:2643743", "owm:3163858"])
        // London entered first, so its late result never replaces Zocca's.
        #expect(await p.engine.engine.currentOverlays.ids == ["owm:3163858"])
    }

    @Test("read-only access: the methods that search or change answer -32601, in a batch too; looking works")
    func readOnly() async throws {
        let p = try HandlerHarness(cities: ["London,GB"])
        let outbox = Outbox()
        let batch =
            "["
            + [
                request(1, "search", #"{"city":"Zocca"}"#), request(2, "cities.add", #"{"city":"Zocca"}"#),
                request(3, "cities"), request(4, "state"),
            ].joined(separator: ",") + "]"
        await p.handler.handle(line: Array(batch.utf8), outbox: outbox, access: .readOnly)
        let replies = try #require(try p.drained(outbox).first?.arrayValue)
        #expect(replies.map { $0["error"]?["code"] } == [.integer(-32601), .integer(-32601), nil, nil])
        #expect(replies[2]["result"]?["cities"] == .array(["London,GB"]))
        #expect(p.engine.upstream.fetchCount == 0)
        #expect(p.engine.store.stored == CityChanges())
    }

    @Test("requests without id in a batch are carried out but get no reply")
    func batchNotifications() async throws {
        let p = try HandlerHarness()
        // Batch elements may run concurrently (JSON-RPC 2.0 §6), so the check follows the batch.
        let lines = try await p.send(#"[{"jsonrpc":"2.0","method":"cities.add","params":{"city":"Zocca"}},\#(request(9, "version"))]"#)
        #expect(lines.count == 1)
        #expect(lines.first?.arrayValue?.map { $0["id"] } == [.integer(9)])
        #expect(p.engine.store.stored.added == ["Zocca"])
    }

    @Test("a batch of only notifications gets no reply at all")
    func batchOfNotifications() async throws {
        let p = try HandlerHarness()
        #expect(try await p.send(#"[{"jsonrpc":"2.0","method":"version"},{"jsonrpc":"2.0","method":"state"}]"#).isEmpty)
    }

    @Test("an empty batch is one -32600 error, not an array")
    func emptyBatch() async throws {
        let p = try HandlerHarness()
        let reply = try await p.reply("[]")
        #expect(reply["error"]?["code"] == .integer(-32600))
        #expect(reply["id"] == .null)
    }

    @Test("a batch of non-objects gets one -32600 error per element")
    func batchOfGarbage() async throws {
        let p = try HandlerHarness()
        let replies = try #require(try await p.reply("[1,2]").arrayValue)
        #expect(replies.map { $0["error"]?["code"] } == [.integer(-32600), .integer(-32600)])
    }

    @Test("a request without id is carried out without a reply, even when it fails")
    func notification() async throws {
        let p = try HandlerHarness()
        #expect(try await p.send(#"{"jsonrpc":"2.0","method":"cities.add","params":{"city":"Zocca"}}"#).isEmpty)
        #expect(p.engine.store.stored.added == ["Zocca"])
        #expect(try await p.send(#"{"jsonrpc":"2.0","method":"search","params":{"city":"Atlantis"}}"#).isEmpty)
    }
}

@Suite("RequestHandler: watch", .timeLimit(.minutes(1)))
struct RequestHandlerWatchTests {
    @Test("watch with replay sends the reply, then the current state and overlays")
    func replay() async throws {
        let p = try HandlerHarness()
        _ = try await p.send(request(1, "search", #"{"city":"London"}"#))
        let lines = try await p.send(request(2, "watch"))
        #expect(lines.count == 3)
        #expect(lines.first?["id"] == .integer(2))
        #expect(lines.dropFirst().map { $0["method"] } == ["state", "overlays"])
        #expect(lines.dropFirst().allSatisfy { $0["id"] == nil && $0["jsonrpc"] == "2.0" })
        #expect(lines.last?["params"]?["seq"] == .integer(1))
        #expect(lines[1]["params"]?["phase"] == "populated")
    }

    @Test("watch with replay false sends only the reply, then later changes")
    func noReplay() async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        let lines = try await p.send(request(1, "watch", #"{"replay":false}"#), outbox)
        #expect(lines.count == 1)
        _ = try await p.send(request(2, "search", #"{"city":"London"}"#))
        let notifications = try p.drained(outbox)
        #expect(notifications.map { $0["method"] } == ["overlays", "state"])
        #expect(notifications.first?["params"]?["features"]?.arrayValue?.count == 1)
        #expect(notifications.last?["params"]?["running"] == .bool(false))
    }

    @Test("a change made as soon as the client has the watch reply reaches it: the subscription holds before the reply is written")
    func changeRightAfterReply() async throws {
        let p = try HandlerHarness()
        let state = await p.engine.engine.currentState
        let outbox = Outbox()
        let written = WrittenAtOnce(outbox, hub: p.hub, publishing: state, asReplyTo: 1)
        await p.handler.handle(line: Array(request(1, "watch", #"{"replay":false}"#).utf8), outbox: outbox)
        let lines = written.lines + (try p.drained(outbox).map(\.serialized))
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.contains(#""id":1"#) == true)
        #expect(lines.last?.contains(#""method":"state""#) == true)
    }

    @Test("after the unwatch reply no notification comes: not one waiting, nor one published as the reply is written")
    func nothingAfterUnwatchReply() async throws {
        let p = try HandlerHarness()
        let state = await p.engine.engine.currentState
        let outbox = Outbox()
        _ = try await p.send(request(1, "watch", #"{"replay":false}"#), outbox)
        let written = WrittenAtOnce(outbox, hub: p.hub, publishing: state, asReplyTo: 2)
        p.hub.publish(state: state)  // it waits: the writer writes when a reply is queued
        await p.handler.handle(line: Array(request(2, "unwatch").utf8), outbox: outbox)
        let lines = written.lines + (try p.drained(outbox).map(\.serialized))
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains(#""id":2"#) == true)
    }

    @Test("topics [\"state\"] gets state notifications only")
    func stateOnly() async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        let lines = try await p.send(request(1, "watch", #"{"topics":["state"]}"#), outbox)
        #expect(lines.first?["result"]?.serialized == #"{"topics":["state"]}"#)
        #expect(lines.dropFirst().map { $0["method"] } == ["state"])
        _ = try await p.send(request(2, "search", #"{"city":"London"}"#))
        let notifications = try p.drained(outbox)
        #expect(!notifications.isEmpty)
        #expect(notifications.allSatisfy { $0["method"] == "state" })
    }

    @Test("a new watch replaces the last")
    func rewatch() async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        _ = try await p.send(request(1, "watch", #"{"topics":["state"],"replay":false}"#), outbox)
        _ = try await p.send(request(2, "watch", #"{"topics":["overlays"],"replay":false}"#), outbox)
        _ = try await p.send(request(3, "search", #"{"city":"London"}"#))
        #expect(try p.drained(outbox).map { $0["method"] } == ["overlays"])
        #expect(p.hub.watcherCount == 1)
    }

    @Test("unwatch stops notifications and drops those not yet sent")
    func unwatch() async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        _ = try await p.send(request(1, "watch", #"{"replay":false}"#), outbox)
        _ = try await p.send(request(2, "search", #"{"city":"London"}"#))
        let lines = try await p.send(request(3, "unwatch"), outbox)
        #expect(lines.map { $0["id"] } == [.integer(3)], "pending notifications are dropped")
        _ = try await p.send(request(4, "search", #"{"city":"Zocca"}"#))
        #expect(try p.drained(outbox).isEmpty)
        #expect(p.hub.watcherCount == 0)
    }

    @Test("a disconnected client is no longer watching")
    func disconnected() async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        _ = try await p.send(request(1, "watch"), outbox)
        #expect(p.hub.watcherCount == 1)
        p.handler.disconnected(outbox)
        #expect(p.hub.watcherCount == 0)
    }

    @Test("a watcher that does not read gets only the newest state and overlays, not a backlog")
    func slowWatcherThroughEngine() async throws {
        let p = try HandlerHarness()
        let watcher = Outbox()
        _ = try await p.send(request(1, "watch", #"{"replay":false}"#), watcher)
        for i in 0..<50 { _ = try await p.send(request(i + 2, "search", #"{"city":"\#(i.isMultiple(of: 2) ? "London" : "Zocca")"}"#)) }
        let lines = try p.drained(watcher)
        #expect(lines.map { $0["method"] } == ["overlays", "state"])
        #expect(lines.first?["params"]?["seq"] == .integer(50))
        #expect(lines.first?["params"]?["features"]?.arrayValue?.first?["id"] == "owm:3163858")
        #expect(lines.last?["params"]?["running"] == .bool(false))
    }
}

@Suite("RequestHandler: forecast", .timeLimit(.minutes(1)))
struct RequestHandlerForecastTests {
    @Test("forecast {city} answers the place's Feature with the steps of the default 24 hours")
    func city() async throws {
        let p = try HandlerHarness()
        p.engine.upstream.scriptForecast(.city("Paris"), .success(regularForecast()))
        let reply = try await p.reply(request(1, "forecast", #"{"city":"  Paris "}"#))
        let result = try #require(reply["result"], "\(reply.serialized)")
        #expect(result["id"] == "owm:42" && result["properties"]?["source"] == "text")
        #expect(result["properties"]?["forecast"]?.arrayValue?.count == 8)
        #expect(p.engine.upstream.forecastFetches == [.coordinate(try #require(p.engine.upstream.coordinate(of: "Paris")))])
    }

    @Test("forecast {lat, lon, hours} asks at the point; hours from 3 to 120")
    func point() async throws {
        let p = try HandlerHarness()
        p.engine.upstream.scriptForecast(.coordinate(Coordinate(lat: 10, lon: 20)), .success(regularForecast()))
        for (hours, steps) in [(3, 1), (12, 4), (120, 40)] {
            let reply = try await p.reply(request(1, "forecast", #"{"lat":10,"lon":20,"hours":\#(hours)}"#))
            #expect(reply["result"]?["properties"]?["forecast"]?.arrayValue?.count == steps, "\(reply.serialized)")
        }
    }

    @Test("bad params are -32602: no place, both, out of range, hours not a whole number in 3..120, unknown params")
    func badParams() async throws {
        let p = try HandlerHarness()
        for params in [
            #"{}"#, #"{"city":""}"#, #"{"city":"Paris","lat":1,"lon":2}"#, #"{"lat":91,"lon":0}"#, #"{"lat":0,"lon":-180.5}"#,
            #"{"lat":0}"#, #"{"lon":0}"#, #"{"lat":"1","lon":2}"#, #"{"city":"Paris","hours":2}"#, #"{"city":"Paris","hours":121}"#,
            #"{"city":"Paris","hours":4.5}"#, #"{"city":"Paris","hours":"24"}"#, #"{"city":"Paris","days":1}"#,
        ] {
            let error = try await p.error(request(1, "forecast", params))
            #expect(error["code"] == .integer(-32602), "\(params): \(error.serialized)")
        }
        #expect(p.engine.upstream.forecastFetches.isEmpty)
    }

    @Test("upstream errors as for search: -32001 not found, -32004 unavailable")
    func upstreamErrors() async throws {
        let p = try HandlerHarness()
        p.engine.upstream.scriptForecast(.city("Nowhere"), .failure(.unavailable("HTTP 502")))
        let notFound = try await p.error(request(1, "forecast", #"{"city":"Atlantis"}"#))
        #expect(
            notFound.serialized == #"{"code":-32001,"message":"city not found: Atlantis","data":{"name":"not_found","city":"Atlantis"}}"#)
        #expect(try await p.error(request(2, "forecast", #"{"city":"Nowhere"}"#))["code"] == .integer(-32004))
    }

    @Test("a forecast changes neither overlays nor state, and notifies no watcher")
    func notAnInput() async throws {
        let p = try HandlerHarness()
        p.engine.upstream.scriptForecast(.city("Paris"), .success(regularForecast()))
        _ = try await p.reply(request(1, "search", #"{"city":"London"}"#))
        let watcher = Outbox()
        _ = try await p.send(request(2, "watch", #"{"replay":false}"#), watcher)
        let overlays = await p.engine.engine.currentOverlays
        let state = await p.engine.engine.currentState
        _ = try await p.reply(request(3, "forecast", #"{"city":"Paris"}"#))
        #expect(await p.engine.engine.currentOverlays == overlays)
        #expect(await p.engine.engine.currentState == state)
        #expect(try p.drained(watcher).isEmpty)
    }

    @Test("read-only access: forecast is -32601")
    func readOnly() async throws {
        let p = try HandlerHarness()
        let outbox = Outbox()
        await p.handler.handle(line: Array(request(1, "forecast", #"{"city":"Paris"}"#).utf8), outbox: outbox, access: .readOnly)
        #expect(try p.drained(outbox).first?["error"]?["code"] == .integer(-32601))
        #expect(p.engine.upstream.forecastFetches.isEmpty)
    }
}
