import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import WeatherSessions

/// Zocca, whose weather station is at 44.34, 10.99.
private let zocca = Coordinate(lat: 44.3412, lon: 10.9876)

// MARK: - the locate request

/// A RequestHandler over a LocationService (no socket).
private struct LocateHandlerHarness {
    let location: LocationHarness
    let handler: RequestHandler

    init(enabled: Bool = true) throws {
        location = try LocationHarness(enabled: enabled)
        let engine = location.engine
        let regions = RegionSearches(
            settings: .init(debounce: .milliseconds(250), around: 1, concurrency: 4), engine: engine.engine,
            clock: DaemonClock(engine.clock), logger: silentLogger)
        handler = RequestHandler(
            engine: engine.engine, location: location.service, regions: regions,
            hub: NotificationHub(), logger: silentLogger)
    }

    /// Sends one `locate` request with `params` and returns its one reply, parsed.
    func locate(_ params: String) async throws -> JSONValue {
        let outbox = Outbox()
        await handler.handle(line: Array(#"{"jsonrpc":"2.0","id":1,"method":"locate","params":\#(params)}"#.utf8), outbox: outbox)
        let line = try #require(outbox.next(), "no reply")
        #expect(outbox.next() == nil, "one reply only")
        return try JSONValue.parse(Array(line.utf8))
    }

    func startLocate(_ params: String) -> Task<JSONValue, any Error> {
        Task { try await locate(params) }
    }
}

@Suite("RequestHandler: locate", .timeLimit(.minutes(1)))
struct LocationServiceRequestTests {
    @Test("locate with {\"timeout\": 0.5} answers with the Feature at the next accepted fix")
    func locateWithTimeout() async throws {
        let p = try LocateHandlerHarness()
        p.location.scriptWeather(at: zocca, name: "Zocca", id: 3_163_858)
        let reply = p.startLocate(#"{"timeout": 0.5}"#)
        await p.location.waitForLocates(1)
        await p.location.service.receive(tpv(zocca.lat, zocca.lon, eph: 20.9, mode: 3))

        let json = try await reply.outcome.get()
        #expect(json["error"] == nil, "\(json.serialized)")
        #expect(json["result"]?["id"] == "owm:3163858")
        #expect(json["result"]?["properties"]?["source"] == "location")
        #expect(
            json["result"]?["properties"]?["fix"]?.serialized
                == #"{"lat":44.3412,"lon":10.9876,"horizontal_error":20.9,"mode":3,"source":"gpsd"}"#)
    }

    @Test("locate with {\"timeout\": 0.5} gives up after 500 ms with -32005 no_fix")
    func locateTimeoutIsSeconds() async throws {
        let p = try LocateHandlerHarness()
        let reply = p.startLocate(#"{"timeout": 0.5}"#)
        await p.location.waitForLocates(1)
        p.location.clock.advance(by: .milliseconds(499))
        #expect(p.location.clock.sleeperCount == 1)
        p.location.clock.advance(by: .milliseconds(1))
        try #require(p.location.clock.sleeperCount == 0, "the timeout is due at exactly 500 ms")

        let json = try await reply.outcome.get()
        #expect(json["error"]?["code"] == .integer(-32005))
        #expect(json["error"]?["data"]?["name"] == "no_fix")
    }

    @Test(
        "a timeout that is not a positive number of seconds, or an unknown param, is -32602 at once",
        arguments: [
            #"{"timeout": -1}"#, #"{"timeout": 0}"#, #"{"timeout": "x"}"#, #"{"timeout": true}"#, #"{"timeout": 3601}"#,
            #"{"wait": 1}"#, #"{"timeout": 1, "mode": 3}"#,
        ])
    func badParams(_ params: String) async throws {
        let p = try LocateHandlerHarness()
        let json = try await p.locate(params)
        #expect(json["error"]?["code"] == .integer(-32602), "\(json.serialized)")
        #expect(json["error"]?["data"]?["name"] == "invalid_params")
        #expect(await p.location.service.waitingLocates == 0)
    }

    @Test("locate with gpsd disabled is -32006 with data.name gps_disabled")
    func disabled() async throws {
        let p = try LocateHandlerHarness(enabled: false)
        let json = try await p.locate("{}")
        #expect(json["error"]?["code"] == .integer(-32006))
        #expect(json["error"]?["data"]?["name"] == "gps_disabled")
        #expect(json["id"] == .integer(1))
    }
}
