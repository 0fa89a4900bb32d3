import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import WeatherSessions

@Suite("RequestHandler: places and search by place", .timeLimit(.minutes(1)))
struct PlacesMethodTests {
    /// The handler, with seven Springfields scripted (S0 to S6).
    private static func handler() throws -> (RequestHandler, EngineHarness) {
        let p = try HandlerHarness()
        p.engine.upstream.scriptPlaces(
            "Springfield",
            (0..<7).map {
                Place(
                    name: "Springfield", state: "S\($0)", country: "US", coordinate: Coordinate(lat: Double($0), lon: 1),
                    provider: "openweathermap")
            })
        return (p.handler, p.engine)
    }

    private static func reply(_ handler: RequestHandler, _ line: String) async throws -> JSONValue {
        let outbox = Outbox()
        await handler.handle(line: Array(line.utf8), outbox: outbox)
        return try JSONValue.parse(Array(try #require(outbox.next()).utf8))
    }

    @Test("places answers the places best first, 5 by default, up to limit; [] for an unknown name")
    func places() async throws {
        let (handler, engine) = try Self.handler()
        let five = try await Self.reply(handler, #"{"jsonrpc":"2.0","id":1,"method":"places","params":{"name":"Springfield"}}"#)
        #expect(five["result"]?["places"]?.arrayValue?.map { $0["state"]?.stringValue } == ["S0", "S1", "S2", "S3", "S4"])
        let two = try await Self.reply(handler, #"{"jsonrpc":"2.0","id":2,"method":"places","params":{"name":"springfield","limit":2}}"#)
        #expect(two["result"]?["places"]?.arrayValue?.count == 2)
        let none = try await Self.reply(handler, #"{"jsonrpc":"2.0","id":3,"method":"places","params":{"name":"Atlantis"}}"#)
        #expect(none["result"]?.serialized == #"{"places":[]}"#)
        #expect(engine.upstream.placeFetches == ["Springfield", "Atlantis"])
        #expect(await engine.engine.currentOverlays.seq == 0, "not an input of the stream")
    }

    @Test(
        "places refuses a bad name or limit with -32602",
        arguments: [
            #"{"name":""}"#, #"{"name":3}"#, #"{}"#, #"{"name":"X","limit":0}"#, #"{"name":"X","limit":11}"#, #"{"name":"X","city":"Y"}"#,
        ])
    func badParams(_ params: String) async throws {
        let (handler, _) = try Self.handler()
        let reply = try await Self.reply(handler, #"{"jsonrpc":"2.0","id":1,"method":"places","params":"# + params + "}")
        #expect(reply["error"]?["code"]?.intValue == -32602, "\(reply.serialized)")
    }

    @Test("search with a place looks it up as given and names the feature after it")
    func searchPlace() async throws {
        let (handler, engine) = try Self.handler()
        engine.upstream.script(.coordinate(Coordinate(lat: 3, lon: 1)), .success(sampleObservation("Station", id: 99, lat: 3, lon: 1)))
        let reply = try await Self.reply(
            handler,
            #"{"jsonrpc":"2.0","id":1,"method":"search","params":{"place":{"name":"Springfield","state":"S3","country":"US","lat":3,"lon":1,"provider":"openweathermap"}}}"#
        )
        let properties = reply["result"]?["properties"]
        #expect(properties?["name"] == "Springfield" && properties?["state"] == "S3" && properties?["alternatives"] == .integer(0))
        #expect(reply["result"]?["id"] == "owm:99")
        #expect(engine.upstream.placeFetches.isEmpty)
        #expect(await engine.engine.currentState.input == .text(city: "Springfield, S3, US"))
    }

    @Test("search refuses a malformed place, or a place beside a city, with -32602")
    func badPlace() async throws {
        let (handler, _) = try Self.handler()
        for params in [
            #"{"place":{"name":"X","lat":100,"lon":0}}"#, #"{"place":"X"}"#, #"{"city":"X","place":{"name":"X","lat":1,"lon":1}}"#,
        ] {
            let reply = try await Self.reply(handler, #"{"jsonrpc":"2.0","id":1,"method":"search","params":"# + params + "}")
            #expect(reply["error"]?["code"]?.intValue == -32602, "\(params): \(reply.serialized)")
        }
    }

    @Test("a read-only web client may not call places")
    func readOnly() {
        #expect(!ClientAccess.readOnly.allows("places"))
        #expect(ClientAccess.web.allows("places") && ClientAccess.broker.allows("places"))
    }
}
