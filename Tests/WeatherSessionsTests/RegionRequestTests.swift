import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import WeatherSessions

// MARK: - The `region` request

@Suite("RequestHandler: region", .timeLimit(.minutes(1)))
struct RegionSearchesRequestTests {
    private func handler(_ h: RegionHarness) -> RequestHandler {
        RequestHandler(
            engine: h.engine.engine, location: locationService(on: h.engine), regions: h.regions, hub: NotificationHub(),
            logger: silentLogger)
    }

    private func reply(_ handler: RequestHandler, _ params: String) async throws -> JSONValue {
        let outbox = Outbox()
        await handler.handle(line: Array(#"{"jsonrpc":"2.0","id":1,"method":"region","params":\#(params)}"#.utf8), outbox: outbox)
        let line = try #require(outbox.next())
        #expect(outbox.next() == nil)
        return try JSONValue.parse(Array(line.utf8))
    }

    @Test("region answers {\"accepted\": true} at once, before the debounce elapses; its search runs after it")
    func acceptedAtOnce() async throws {
        let h = try RegionHarness()
        let r = mapRegion(10, 20, span: (2, 2))
        h.scriptGrid(r)
        let reply = try await reply(handler(h), #"{"center":{"lat":10,"lon":20},"span":{"lat":2,"lon":2}}"#)
        #expect(reply.serialized == #"{"jsonrpc":"2.0","id":1,"result":{"accepted":true}}"#)
        #expect(h.upstream.fetchCount == 0, "nothing looked up before the debounce")
        #expect(await h.engine.engine.currentGeneration == 0)

        await untilCancelled { [debounce = h.debounce] in await debounce.waitForSleepers(1) }
        h.passDebounce()
        await h.waitUntilSettled(r)
        #expect(h.gridFetches(r) == 9)
    }

    @Test(
        "region with bad params is -32602 invalid_params",
        arguments: [
            #"{}"#,
            #"{"span":{"lat":2,"lon":2}}"#,
            #"{"center":{"lat":91,"lon":20}}"#,
            #"{"center":{"lat":10,"lon":180.5}}"#,
            #"{"center":{"lat":10,"lon":20},"span":{"lat":0,"lon":2}}"#,
            #"{"center":{"lat":10,"lon":20},"zoom":3}"#,
            #"{"center":{"lat":"10","lon":20}}"#,
            #"{"center":[20,10]}"#,
        ])
    func rejectsBadParams(_ params: String) async throws {
        let h = try RegionHarness()
        let reply = try await reply(handler(h), params)
        #expect(reply["error"]?["code"] == .integer(-32602), "\(reply.serialized)")
        #expect(reply["error"]?["data"]?["name"] == "invalid_params")
        #expect(reply["result"] == nil)
    }
}
