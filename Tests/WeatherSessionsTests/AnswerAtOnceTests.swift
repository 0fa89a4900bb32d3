import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import WeatherSessions

private func request(_ id: Int, _ method: String, _ params: String = "{}") -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
}

/// A handler whose cache holds London and Zocca (the overlays focused on Zocca), with a watcher.
private struct Warmed {
    let p: HandlerHarness
    let watcher = Outbox()

    init() async throws {
        p = try HandlerHarness(cacheTTL: .seconds(600))
        _ = try await p.send(request(1, "search", #"{"city":"London"}"#))
        _ = try await p.send(request(2, "search", #"{"city":"Zocca"}"#))
        p.hub.watch(watcher, topics: [.state, .overlays], replay: false)
    }

    /// What `line` gets, through `handle` or at once, and what the watcher got meanwhile.
    func answer(_ line: String, atOnce: Bool) async throws -> (replies: [String], notices: [String]) {
        let outbox = Outbox()
        if atOnce {
            #expect(p.handler.answerAtOnce(line: Array(line.utf8), outbox: outbox))
        } else {
            await p.handler.handle(line: Array(line.utf8), outbox: outbox)
        }
        return (try p.drained(outbox).map(\.serialized), try p.drained(watcher).map(\.serialized))
    }
}

@Suite("RequestHandler: what is answered at once", .timeLimit(.minutes(1)))
struct AnswerAtOnceTests {
    @Test(
        "a cached search, overlays, cities, state, watch and unwatch at once: the same reply and the same notifications as through handle",
        arguments: [
            request(7, "search", #"{"city":"London"}"#), request(7, "search", #"{"city":" london "}"#),
            request(8, "overlays"), request(9, "cities"), request(10, "state"),
            #"{"jsonrpc":"2.0","method":"search","params":{"city":"London"}}"#,
            request(11, "watch", #"{"topics":["state","overlays"],"replay":true}"#), request(12, "unwatch"),
        ])
    func same(_ line: String) async throws {
        let through = try await Warmed()
        let atOnce = try await Warmed()
        let expected = try await through.answer(line, atOnce: false)
        let fetches = atOnce.p.engine.upstream.fetchCount
        let got = try await atOnce.answer(line, atOnce: true)
        #expect(got.replies == expected.replies)
        #expect(got.notices == expected.notices)
        #expect(atOnce.p.engine.upstream.fetchCount == fetches, "nothing asked upstream")
        #expect(await atOnce.p.engine.engine.currentOverlays == through.p.engine.engine.currentOverlays)
    }

    @Test(
        "anything else is not answered at once, and nothing is done: not cached, invalid, a batch, a parse error, another method",
        arguments: [
            request(1, "search", #"{"city":"Atlantis"}"#), request(1, "search", #"{"city":5}"#),
            request(1, "search", #"{"city":"London","extra":1}"#), "[\(request(1, "overlays"))]", "{", request(1, "version"),
            request(1, "watch", #"{"topics":["weather"]}"#), #"{"jsonrpc":"1.0","id":1,"method":"overlays"}"#,
        ])
    func notAtOnce(_ line: String) async throws {
        let warmed = try await Warmed()
        let outbox = Outbox()
        let generation = await warmed.p.engine.engine.currentGeneration
        #expect(!warmed.p.handler.answerAtOnce(line: Array(line.utf8), outbox: outbox))
        #expect(try warmed.p.drained(outbox).isEmpty)
        #expect(try warmed.p.drained(warmed.watcher).isEmpty)
        #expect(await warmed.p.engine.engine.currentGeneration == generation)
    }

    @Test("a cached search's reply is handed to its writer before any watcher is offered its changes")
    func replyBeforeItsChanges() async throws {
        let warmed = try await Warmed()
        let signals = Mutex<[String]>([])
        let outbox = Outbox()
        outbox.write(whenSignalled: { signal in signals.withLock { $0.append("reply: \(signal)") } })
        let other = Outbox()
        warmed.p.hub.watch(other, topics: [.state, .overlays], replay: false)
        other.write(whenSignalled: { signal in signals.withLock { $0.append("watcher: \(signal)") } })
        signals.withLock { $0.removeAll() }
        #expect(warmed.p.handler.answerAtOnce(line: Array(request(7, "search", #"{"city":"London"}"#).utf8), outbox: outbox))
        #expect(signals.withLock { $0 }.first == "reply: lines")
        #expect(signals.withLock { $0 }.contains("watcher: notifications"))
        #expect(try warmed.p.drained(outbox).first?["id"]?.intValue == 7)
        #expect(Set(try warmed.p.drained(other).map { $0["method"]?.stringValue }) == ["state", "overlays"])
    }

    @Test("a client's connection that only reads: a search is not answered at once")
    func readOnly() async throws {
        let warmed = try await Warmed()
        let line = request(1, "search", #"{"city":"London"}"#)
        #expect(!warmed.p.handler.answerAtOnce(line: Array(line.utf8), outbox: Outbox(), access: .readOnly))
    }
}
