import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import WeatherSessions

/// A client session over a real handler, engine, location service and hub, with the transport
/// played by the test: scripted inputs whose consumption is counted, and a write the test controls.
private struct SessionHarness {
    let hub = NotificationHub()
    let engine: EngineHarness
    let location: LocationService
    let handler: RequestHandler

    init(cacheTTL: Duration = .zero) throws {
        engine = try EngineHarness(cities: [], cacheTTL: cacheTTL, publisher: hub)
        location = locationService(on: engine, enabled: true, locateTimeout: .seconds(3600))
        handler = RequestHandler(
            engine: engine.engine, location: location, regions: regionSearches(on: engine), hub: hub, logger: silentLogger)
        try engine.scriptFixtures()
    }
}

/// The connection the test plays: when it closes, the client's inputs end, a stalled write fails
/// and the session is told (`hangUp`), as the NIO transports do.
private final class ScriptedConnection: Sendable {
    let closed = Observed(false)

    func close(_ session: ClientSession) {
        closed.update { $0 = true }
        session.hangUp()
    }

    /// Until closed (true), or cancelled (false).
    func waitClosed() async -> Bool {
        (try? await closed.wait(for: "the connection to close", timeout: nil) { $0 ? () : nil }) != nil
    }
}

/// A client's messages: what was queued, handed out as the session reads them, with a count of
/// how many it has read; without `end`, the client keeps the connection open after them (until
/// it closes).
private final class ScriptedInputs: AsyncSequence, Sendable {
    typealias Element = ClientInput

    let read = Observed(0)
    private let inputs: Mutex<[ClientInput]>
    private let end: Bool
    private let connection: ScriptedConnection

    init(_ inputs: [ClientInput], end: Bool, connection: ScriptedConnection) {
        self.inputs = Mutex(inputs)
        self.end = end
        self.connection = connection
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: ScriptedInputs

        mutating func next() async throws -> ClientInput? {
            if let input = source.inputs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                source.read.update { $0 += 1 }
                return input
            }
            guard !source.end else { return nil }
            _ = await source.connection.waitClosed()  // an open connection: until it closes or cancelled
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
}

/// What the client received; with `stalled`, a client that never reads: a write waits until the
/// connection closes (then it fails, as a closed NIO channel fails its waiting writes) or until
/// cancelled; with `failing`, the first write finds the connection gone.
private final class ScriptedWrites: Sendable {
    let lines = Observed<[String]>([])
    let attempts = Observed(0)
    let stalled: Bool
    let failing: Bool
    private let connection: ScriptedConnection

    init(stalled: Bool = false, failing: Bool = false, connection: ScriptedConnection) {
        self.stalled = stalled
        self.failing = failing
        self.connection = connection
    }

    struct Gone: Error {}

    /// A write by a task (`ClientSession.run(_:write:)`, as the WebSocket writes).
    func write(_ line: String) async throws {
        attempts.update { $0 += 1 }
        if failing { throw Gone() }
        if stalled {
            _ = await connection.waitClosed()
            throw Gone()
        }
        lines.update { $0.append(line) }
    }

    var ids: [JSONValue] {
        lines.value.compactMap { try? JSONValue.parse(Array($0.utf8))["id"] }
    }
}

/// Writes from whatever thread tells it there are lines (`ClientSession.run(_:writer:)`, as the
/// Unix socket writes from its event loop). Stalled, it takes nothing, as an unwritable channel;
/// failing, the connection closes at its first line, as NIO closes a channel whose write fails.
private final class ScriptedLineWriter: LineWriter {
    let writes: ScriptedWrites
    let connection: ScriptedConnection
    let session: ClientSession
    private let taking = Mutex(())

    init(writes: ScriptedWrites, connection: ScriptedConnection, session: ClientSession) {
        self.writes = writes
        self.connection = connection
        self.session = session
    }

    func linesReady(in outbox: Outbox) {
        guard !writes.stalled || connection.closed.value else { return }
        let failed = taking.withLock { _ -> Bool in
            while true {
                switch outbox.take() {
                case .line(let line):
                    writes.attempts.update { $0 += 1 }
                    if writes.failing { return true }
                    writes.lines.update { $0.append(line) }
                case .none:
                    return false
                case .finished:
                    outbox.confirmWritten()
                    return false
                }
            }
        }
        if failed { connection.close(session) }
    }
}

/// How the session's lines are written: by a task (the WebSocket) or by the transport's thread
/// (the Unix socket).
enum Writing: String, CaseIterable, CustomTestStringConvertible {
    case byTask, byTransport
    var testDescription: String { rawValue }
}

/// One client connection, as the test scripts it.
private struct Scripted {
    let connection = ScriptedConnection()
    let inputs: ScriptedInputs
    let writes: ScriptedWrites
    let session: ClientSession
    let writing: Writing

    init(_ h: SessionHarness, _ writing: Writing, _ inputs: [ClientInput], end: Bool, stalled: Bool = false, failing: Bool = false) {
        self.inputs = ScriptedInputs(inputs, end: end, connection: connection)
        self.writes = ScriptedWrites(stalled: stalled, failing: failing, connection: connection)
        self.session = ClientSession(handler: h.handler)
        self.writing = writing
    }

    func run() async {
        switch writing {
        case .byTask: await session.run(inputs, write: writes.write)
        case .byTransport: await session.run(inputs, writer: ScriptedLineWriter(writes: writes, connection: connection, session: session))
        }
    }

    /// The connection closes: the client is gone.
    func close() {
        connection.close(session)
    }
}

private func request(_ id: Int, _ method: String, _ params: String = "{}") -> ClientInput {
    .message(Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8))
}

@Suite("ClientSession: one model per connection that cannot wedge", .timeLimit(.minutes(1)))
struct ClientSessionTests {
    @Test("a message offered while one of the client's runs is not answered at once: it enters the stream after it")
    func atOnceKeepsOrder() async throws {
        let h = try SessionHarness(cacheTTL: .seconds(600))
        _ = try await h.engine.engine.search(city: "London")  // cached from now on
        let zocca = h.engine.upstream.script(.city("Zocca"), .success(try Fixture.zoccaObservation()), gated: true)
        let connection = ScriptedConnection()
        let writes = ScriptedWrites(connection: connection)
        let session = ClientSession(handler: h.handler)
        let (inputs, feed) = AsyncStream.makeStream(of: ClientInput.self)
        /// As the Unix socket's handler does: offered first, else handed to the inputs. Whether it
        /// was answered at once.
        func offer(_ line: ClientInput) -> Bool {
            guard case .message(let bytes) = line, session.answerAtOnce(bytes) else {
                feed.yield(line)
                return false
            }
            return true
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await session.run(
                    inputs, writer: ScriptedLineWriter(writes: writes, connection: connection, session: session), offered: true)
            }
            #expect(!offer(request(1, "search", #"{"city":"Zocca"}"#)), "not cached")
            await zocca.waitForArrivals(1)  // the session reads, and Zocca's lookup runs
            #expect(!offer(request(2, "search", #"{"city":"London"}"#)), "cached, but Zocca's request is not done")
            zocca.open()
            try await writes.lines.wait(for: "both replies", timeout: nil) { $0.count == 2 ? () : nil }
            feed.finish()
            try await group.waitForAll()
        }
        // Replies may come in any order (their lookups run side by side); the inputs entered in order.
        #expect(writes.ids.compactMap(\.intValue).sorted() == [1, 2])
        #expect(await h.engine.engine.currentState.input == .text(city: "London"), "London entered the stream last")
        #expect(h.engine.upstream.fetchCount(of: "London") == 1, "London's second search from the cache")
    }

    @Test("before the session runs, nothing is answered at once")
    func atOnceBeforeRun() async throws {
        let h = try SessionHarness(cacheTTL: .seconds(600))
        _ = try await h.engine.engine.search(city: "London")
        let session = ClientSession(handler: h.handler)
        #expect(!session.answerAtOnce(Array(#"{"jsonrpc":"2.0","id":1,"method":"overlays"}"#.utf8)))
    }

    @Test("every reply is written, and the session ends once a half-closed client has them all", arguments: Writing.allCases)
    func halfClose(_ writing: Writing) async throws {
        let h = try SessionHarness()
        let c = Scripted(h, writing, [request(1, "version"), request(2, "search", #"{"city":"London"}"#), request(3, "state")], end: true)
        await c.run()
        #expect(c.writes.ids.compactMap(\.intValue).sorted() == [1, 2, 3])
    }

    @Test(
        "a client that floods without reading is no longer read once 64 replies wait, and its hang-up releases everything",
        arguments: Writing.allCases)
    func floodAndClose(_ writing: Writing) async throws {
        let h = try SessionHarness()
        let c = Scripted(
            h, writing, [request(0, "watch")] + (1...1000).map { request($0, "version") } + [request(1001, "locate")], end: false,
            stalled: true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await c.run() }
            // Replies pile up behind the first write, which never completes.
            try await c.inputs.read.wait(for: "the session to read 65 messages", timeout: nil) {
                $0 >= Outbox.maxQueuedReplies + 1 ? () : nil
            }
            c.close()
            try await group.waitForAll()
        }
        #expect(c.inputs.read.value <= Outbox.maxQueuedReplies + 2, "read \(c.inputs.read.value) messages with the replies unread")
        #expect(h.hub.watcherCount == 0)
        #expect(await h.location.waitingLocates == 0)
    }

    @Test("at most 16 requests of a client run at once: the 17th is read and waits until one of them ends", arguments: Writing.allCases)
    func requestsInFlight(_ writing: Writing) async throws {
        let h = try SessionHarness()
        let limit = ClientSession.maxRequestsInFlight
        // The first locate gives up after a second; the others wait an hour for a fix.
        let c = Scripted(h, writing, [request(1, "locate", #"{"timeout":1}"#)] + (2...limit + 2).map { request($0, "locate") }, end: false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await c.run() }
            try await c.inputs.read.wait(for: "\(limit + 1) messages read", timeout: nil) { $0 == limit + 1 ? () : nil }
            await untilCancelled { [clock = h.engine.clock] in await clock.waitForSleepers(limit) }
            #expect(await h.location.waitingLocates == limit)
            #expect(c.inputs.read.value == limit + 1, "the next message is not read while \(limit) requests run")
            h.engine.clock.advance(by: .seconds(1))
            try await c.inputs.read.wait(for: "the next message read once the first locate ended", timeout: nil) {
                $0 == limit + 2 ? () : nil
            }
            try await c.writes.lines.wait(for: "the reply to the locate that timed out", timeout: nil) { $0.isEmpty ? nil : () }
            c.close()
            try await group.waitForAll()
        }
        #expect(c.writes.ids.compactMap(\.intValue) == [1], "only the locate that timed out has its reply")
        #expect(await h.location.waitingLocates == 0)
    }

    @Test("a hang-up while requests run cancels them and ends the session at once", arguments: Writing.allCases)
    func hangUpWhileRunning(_ writing: Writing) async throws {
        let h = try SessionHarness()
        let c = Scripted(h, writing, [request(1, "watch"), request(2, "locate"), request(3, "locate")], end: false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await c.run() }
            try await c.inputs.read.wait(for: "both locates to be read", timeout: nil) { $0 == 3 ? () : nil }
            await untilCancelled { [clock = h.engine.clock] in await clock.waitForSleepers(2) }
            c.close()
            try await group.waitForAll()
        }
        #expect(await h.location.waitingLocates == 0)
        #expect(h.hub.watcherCount == 0)
    }

    @Test("a hang-up after the client's last request ends the requests still running", arguments: Writing.allCases)
    func hangUpAfterHalfClose(_ writing: Writing) async throws {
        let h = try SessionHarness()
        let c = Scripted(h, writing, [request(1, "version"), request(2, "locate")], end: true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await c.run() }
            await untilCancelled { [clock = h.engine.clock] in await clock.waitForSleepers(1) }
            try await c.writes.lines.wait(for: "the reply to version", timeout: nil) { $0.isEmpty ? nil : () }
            c.close()
            try await group.waitForAll()
        }
        #expect(c.writes.ids.compactMap(\.intValue) == [1])
        #expect(await h.location.waitingLocates == 0)
    }

    @Test("cancelling the session (shutdown) ends it while its writes stall and its reads wait for room", arguments: Writing.allCases)
    func cancelWhileStalled(_ writing: Writing) async throws {
        let h = try SessionHarness()
        let c = Scripted(h, writing, (1...200).map { request($0, "version") } + [request(201, "locate")], end: false, stalled: true)
        let run = Task { await c.run() }
        try await c.inputs.read.wait(for: "the session to stop reading", timeout: nil) { $0 >= Outbox.maxQueuedReplies + 1 ? () : nil }
        run.cancel()
        await run.value
        #expect(c.inputs.read.value < 200)
    }

    @Test("a client that is gone (a write fails) ends the session though it never closed its side", arguments: Writing.allCases)
    func failedWrite(_ writing: Writing) async throws {
        let h = try SessionHarness()
        let c = Scripted(h, writing, [request(1, "watch"), request(2, "locate")], end: false, failing: true)
        await c.run()
        #expect(c.writes.attempts.value == 1)
        #expect(h.hub.watcherCount == 0)
        #expect(await h.location.waitingLocates == 0)
    }

    @Test("a refused line gets its reply after the replies before it; nothing after it is read", arguments: Writing.allCases)
    func refuse(_ writing: Writing) async throws {
        let h = try SessionHarness()
        let c = Scripted(h, writing, [request(1, "version"), .refuse(reply: "refused"), request(2, "version")], end: false)
        await c.run()
        #expect(c.writes.lines.value.count == 2)
        #expect(c.writes.lines.value.last == "refused")
        #expect(c.inputs.read.value == 2)
    }

    @Test("a hang-up before the session runs ends it at once", arguments: Writing.allCases)
    func hangUpFirst(_ writing: Writing) async throws {
        let h = try SessionHarness()
        let c = Scripted(h, writing, [], end: false)
        c.close()
        await c.run()
    }
}
