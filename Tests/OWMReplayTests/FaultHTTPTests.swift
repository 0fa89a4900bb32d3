import Foundation
import Testing
import WeatherCore

@testable import TestSupport
@testable import owm_replay

/// The faults that change how an answer goes out, through real HTTP to a server in this process.
@Suite("Faults over HTTP", .timeLimit(.minutes(1)))
struct FaultHTTPTests {
    /// Runs `body` against a fresh server, stopped afterwards.
    func withReplay(_ body: (RunningReplay) async throws -> Void) async throws {
        let replay = try await RunningReplay.start(try WeatherEndpointTests.endpoint())
        do {
            try await body(replay)
        } catch {
            try? await replay.stop()
            throw error
        }
        try await replay.stop()
    }

    @Test("set, answered and cleared over HTTP: 429 with its Retry-After header")
    func statusOverHTTP() async throws {
        try await withReplay { replay in
            #expect(try await replay.request("POST", "/_faults?city=Paris&fault=429&retry_after=2").status == 200)
            let limited = try await replay.request("GET", "/data/2.5/weather?q=Paris")
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"] == "2")
            #expect(try await replay.request("DELETE", "/_faults").status == 200)
            #expect(try await replay.request("GET", "/data/2.5/weather?q=Paris").status == 200)
        }
    }

    @Test("not-json: status 200 and a body that does not parse")
    func notJSON() async throws {
        try await withReplay { replay in
            _ = try await replay.request("POST", "/_faults?city=Paris&fault=not-json")
            let reply = try await replay.request("GET", "/data/2.5/weather?q=Paris")
            #expect(reply.status == 200)
            #expect(throws: (any Error).self) { try reply.json() }
        }
    }

    @Test("huge: exactly the bytes asked for, announced in Content-Length, a JSON object")
    func huge() async throws {
        try await withReplay { replay in
            let bytes = 3 * 1024 * 1024 + 17
            _ = try await replay.request("POST", "/_faults?city=Paris&fault=huge&bytes=\(bytes)")
            let reply = try await replay.request("GET", "/data/2.5/weather?q=Paris")
            #expect(reply.status == 200)
            #expect(reply.headers["content-length"] == String(bytes))
            #expect(reply.body.count == bytes)
            #expect(try reply.json()["cod"] == .integer(200))
            // HEAD announces the length and sends nothing.
            let head = try await replay.request("HEAD", "/data/2.5/weather?q=Paris")
            #expect(head.headers["content-length"] == String(bytes) && head.body.isEmpty)
        }
    }

    @Test("huge and chunked: the bytes asked for, without a Content-Length")
    func hugeChunked() async throws {
        try await withReplay { replay in
            let bytes = 2 * 1024 * 1024
            _ = try await replay.request("POST", "/_faults?city=Paris&fault=huge&bytes=\(bytes)&chunked")
            let reply = try await replay.request("GET", "/data/2.5/weather?q=Paris")
            #expect(reply.status == 200)
            #expect(reply.headers["content-length"] == nil)
            #expect(reply.body.count == bytes)
            #expect(try reply.json()["cod"] == .integer(200))
        }
    }

    @Test("drip: the usual body, a piece of N bytes a second")
    func drip() async throws {
        try await withReplay { replay in
            let usual = try await replay.request("GET", "/data/2.5/weather?q=Paris")
            // Three pieces: the first at once, the last two seconds later.
            let rate = usual.body.count / 3 + 1
            _ = try await replay.request("POST", "/_faults?city=Paris&fault=drip&rate=\(rate)")
            let dripped = try await replay.request("GET", "/data/2.5/weather?q=Paris")
            #expect(dripped.status == 200)
            #expect(dripped.body == usual.body)
            #expect(dripped.headers["content-length"] == String(usual.body.count))
            // The pieces come a second apart: the last arrives two seconds after the first (a
            // loaded machine may delay the first, never bring the last closer to it).
            let first = try #require(dripped.firstBodyByteAfter)
            #expect(dripped.completeAfter - first >= .milliseconds(1500), "first byte after \(first), all after \(dripped.completeAfter)")
        }
    }

    @Test("hang: no answer until cleared, then the usual one")
    func hangCleared() async throws {
        try await withReplay { replay in
            _ = try await replay.request("POST", "/_faults?city=Paris&fault=hang")
            let client = try HTTPClientConnection(port: replay.port)
            try client.send("GET", "/data/2.5/weather?q=Paris")
            let reply = Task { try await client.readReply() }
            try await replay.waitForHanging(1)
            #expect(try await replay.request("GET", "/data/2.5/weather?q=London").status == 200, "others are answered meanwhile")
            _ = try await replay.request("DELETE", "/_faults?city=Paris")
            let answer = try await reply.value
            #expect(answer.status == 200)
            #expect(try answer.json()["name"] == "Paris")
            #expect(try await replay.faults()["hanging"] == .integer(0))
        }
    }

    @Test("hang: a client that goes away leaves nothing hanging")
    func hangClientGone() async throws {
        try await withReplay { replay in
            _ = try await replay.request("POST", "/_faults?city=*&fault=hang")
            let client = try HTTPClientConnection(port: replay.port)
            try client.send("GET", "/data/2.5/weather?q=Paris")
            try await replay.waitForHanging(1)
            client.close()
            try await replay.waitForHanging(0)
            #expect(try await replay.faults()["faults"]?.arrayValue?.count == 1, "the fault itself stays")
        }
    }

    @Test("stopping the server ends hanging and dripping requests at once")
    func stopWhileHanging() async throws {
        let replay = try await RunningReplay.start(try WeatherEndpointTests.endpoint())
        _ = try await replay.request("POST", "/_faults?city=Paris&fault=hang")
        _ = try await replay.request("POST", "/_faults?city=London&fault=drip&rate=1")
        let hanging = try HTTPClientConnection(port: replay.port)
        try hanging.send("GET", "/data/2.5/weather?q=Paris")
        let dripping = try HTTPClientConnection(port: replay.port)
        try dripping.send("GET", "/data/2.5/weather?q=London")
        try await replay.waitForHanging(1)

        // Awaited, not timed: a stop that waited for the hanging request would never return (the
        // suite's time limit fails it then).
        try await replay.stop()
        // Both connections were closed without a complete answer.
        let hangingReply = try? await hanging.readReply(timeout: .seconds(5))
        #expect(hangingReply == nil)
        let drippingReply = try? await dripping.readReply(timeout: .seconds(5))
        #expect(drippingReply.map { $0.body.count < Int($0.headers["content-length"] ?? "0")! } ?? true)
    }
}
