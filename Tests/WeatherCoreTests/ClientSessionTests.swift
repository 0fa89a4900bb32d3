import Synchronization
import Testing
@testable import WeatherCore
@testable import TestSupport

/// A client session over a real handler, engine, location service and hub, with the transport
/// played by the test: scripted inputs whose consumption is counted, and a write the test controls.
private struct SessionHarness {
    let hub = NotificationHub()
    let engine: EngineHarness
    let location: LocationService
    let handler: RequestHandler

    init() throws {
        engine = try EngineHarness(cities: [], publisher: hub)
        location = LocationService(
            settings: .init(enabled: true, maxHorizontalError: 100, locateTimeout: .seconds(3600), follow: false, followDistance: 1000),
            engine: engine.engine, clock: DaemonClock(engine.clock), logger: silentLogger)
        let regions = RegionSearches(
            settings: .init(debounce: .milliseconds(250), around: 1, concurrency: 4), engine: engine.engine,
            clock: DaemonClock(engine.clock), logger: silentLogger)
        handler = RequestHandler(engine: engine.engine, location: location, regions: regions, hub: hub, logger: silentLogger)
        try engine.scriptFixtures()
    }
}

/// A client's messages: what was queued, handed out as the session reads them, with a count of
/// how many it has read; without `end`, the client keeps the connection open after them.
private final class ScriptedInputs: AsyncSequence, Sendable {
    typealias Element = ClientInput

    let read = Observed(0)
    private let inputs: Mutex<[ClientInput]>
    private let end: Bool

    init(_ inputs: [ClientInput], end: Bool) {
        self.inputs = Mutex(inputs)
        self.end = end
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: ScriptedInputs

        mutating func next() async throws -> ClientInput? {
            if let input = source.inputs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                source.read.update { $0 += 1 }
                return input
            }
            guard !source.end else { return nil }
            try await Task.sleep(for: .seconds(86_400))  // an open connection: until cancelled
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
}

/// What the client received; with `stalled`, a client that never reads: a write waits until the
/// connection closes (`close`, which then fails it, as a closed NIO channel fails its waiting
/// writes) or until cancelled.
private final class ScriptedWrites: Sendable {
    let lines = Observed<[String]>([])
    let attempts = Observed(0)
    private let stalled: Bool
    private let failing: Bool
    private let closed = Wakeup()

    init(stalled: Bool = false, failing: Bool = false) {
        self.stalled = stalled
        self.failing = failing
    }

    struct Gone: Error {}

    /// The connection closed: a stalled write fails.
    func close() {
        closed.wake()
    }

    func write(_ line: String) async throws {
        attempts.update { $0 += 1 }
        if failing { throw Gone() }
        if stalled {
            _ = await closed.wait()
            throw Gone()
        }
        lines.update { $0.append(line) }
    }

    var ids: [JSONValue] {
        lines.value.compactMap { try? JSONValue.parse(Array($0.utf8))["id"] }
    }
}

private func request(_ id: Int, _ method: String, _ params: String = "{}") -> ClientInput {
    .message(Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8))
}

@Suite("ClientSession: one model per connection that cannot wedge", .timeLimit(.minutes(1)))
struct ClientSessionTests {
    @Test("every reply is written, and the session ends once a half-closed client has them all")
    func halfClose() async throws {
        let h = try SessionHarness()
        let inputs = ScriptedInputs([request(1, "version"), request(2, "search", #"{"city":"London"}"#), request(3, "state")], end: true)
        let writes = ScriptedWrites()
        await ClientSession(handler: h.handler).run(inputs, write: writes.write)
        #expect(writes.ids.compactMap(\.intValue).sorted() == [1, 2, 3])
    }

    @Test("a client that floods without reading is no longer read once 64 replies wait, and its hang-up releases everything")
    func floodAndClose() async throws {
        let h = try SessionHarness()
        let inputs = ScriptedInputs(
            [request(0, "watch")] + (1...1000).map { request($0, "version") } + [request(1001, "locate")], end: false)
        let writes = ScriptedWrites(stalled: true)
        let session = ClientSession(handler: h.handler)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await session.run(inputs, write: writes.write) }
            // Replies pile up behind the first write, which never completes.
            try await inputs.read.wait(for: "the session to read 65 messages") { $0 >= Outbox.maxQueuedReplies + 1 ? () : nil }
            // The connection closes: the transport fails the stalled write and hangs up.
            writes.close()
            session.hangUp()
            try await group.waitForAll()
        }
        #expect(inputs.read.value <= Outbox.maxQueuedReplies + 2, "read \(inputs.read.value) messages with the replies unread")
        #expect(h.hub.watcherCount == 0)
        #expect(await h.location.waitingLocates == 0)
    }

    @Test("at most 16 requests of a client run at once: the 17th is read and waits until one of them ends")
    func requestsInFlight() async throws {
        let h = try SessionHarness()
        let limit = ClientSession.maxRequestsInFlight
        // The first locate gives up after a second; the others wait an hour for a fix.
        let inputs = ScriptedInputs(
            [request(1, "locate", #"{"timeout":1}"#)] + (2...limit + 2).map { request($0, "locate") }, end: false)
        let writes = ScriptedWrites()
        let session = ClientSession(handler: h.handler)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await session.run(inputs, write: writes.write) }
            try await inputs.read.wait(for: "\(limit + 1) messages read") { $0 == limit + 1 ? () : nil }
            await untilCancelled { [clock = h.engine.clock] in await clock.waitForSleepers(limit) }
            #expect(await h.location.waitingLocates == limit)
            #expect(inputs.read.value == limit + 1, "the next message is not read while \(limit) requests run")
            h.engine.clock.advance(by: .seconds(1))
            try await inputs.read.wait(for: "the next message read once the first locate ended") { $0 == limit + 2 ? () : nil }
            try await writes.lines.wait(for: "the reply to the locate that timed out") { $0.isEmpty ? nil : () }
            session.hangUp()
            try await group.waitForAll()
        }
        #expect(writes.ids.compactMap(\.intValue) == [1], "only the locate that timed out has its reply")
        #expect(await h.location.waitingLocates == 0)
    }

    @Test("a hang-up while requests run cancels them and ends the session at once")
    func hangUpWhileRunning() async throws {
        let h = try SessionHarness()
        let inputs = ScriptedInputs([request(1, "watch"), request(2, "locate"), request(3, "locate")], end: false)
        let writes = ScriptedWrites()
        let session = ClientSession(handler: h.handler)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await session.run(inputs, write: writes.write) }
            try await inputs.read.wait(for: "both locates to be read") { $0 == 3 ? () : nil }
            await untilCancelled { [clock = h.engine.clock] in await clock.waitForSleepers(2) }
            session.hangUp()
            try await group.waitForAll()
        }
        #expect(await h.location.waitingLocates == 0)
        #expect(h.hub.watcherCount == 0)
    }

    @Test("cancelling the session (shutdown) ends it while its writes stall and its reads wait for room")
    func cancelWhileStalled() async throws {
        let h = try SessionHarness()
        let inputs = ScriptedInputs((1...200).map { request($0, "version") } + [request(201, "locate")], end: false)
        let writes = ScriptedWrites(stalled: true)
        let session = ClientSession(handler: h.handler)
        let run = Task { await session.run(inputs, write: writes.write) }
        try await inputs.read.wait(for: "the session to stop reading") { $0 >= Outbox.maxQueuedReplies + 1 ? () : nil }
        run.cancel()
        await run.value
        #expect(inputs.read.value < 200)
    }

    @Test("a client that is gone (a write fails) ends the session though it never closed its side")
    func failedWrite() async throws {
        let h = try SessionHarness()
        let inputs = ScriptedInputs([request(1, "watch"), request(2, "locate")], end: false)
        let writes = ScriptedWrites(failing: true)
        await ClientSession(handler: h.handler).run(inputs, write: writes.write)
        #expect(writes.attempts.value == 1)
        #expect(h.hub.watcherCount == 0)
        #expect(await h.location.waitingLocates == 0)
    }

    @Test("a refused line gets its reply after the replies before it; nothing after it is read")
    func refuse() async throws {
        let h = try SessionHarness()
        let inputs = ScriptedInputs([request(1, "version"), .refuse(reply: "refused"), request(2, "version")], end: false)
        let writes = ScriptedWrites()
        await ClientSession(handler: h.handler).run(inputs, write: writes.write)
        #expect(writes.lines.value.count == 2)
        #expect(writes.lines.value.last == "refused")
        #expect(inputs.read.value == 2)
    }

    @Test("a hang-up before the session runs ends it at once")
    func hangUpFirst() async throws {
        let h = try SessionHarness()
        let session = ClientSession(handler: h.handler)
        session.hangUp()
        await session.run(ScriptedInputs([], end: false), write: ScriptedWrites().write)
    }
}
