import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Thousands of random and malformed lines (× `WEATHERD_RELIABILITY_SCALE`) over the socket to the
/// real daemon. Every reply must be a JSON-RPC 2.0 line, each line must get exactly the replies the
/// protocol reference promises (requests with an id one, notifications none), the daemon must
/// survive it all and its memory must stay bounded.
@Suite("Reliability: protocol fuzz", .serialized)
struct ReliabilityProtocolFuzzTests {
    static let suite = "protocol fuzz"

    /// Per connection of ordinary lines (sent in one go, then the sending side closed).
    static let linesPerConnection = 10...50
    /// Ordinary lines per scale unit.
    static let baseLines = 3000
    /// Connections fuzzed side by side.
    static let parallelConnections = 4
    /// How often each edge case (lines at and over the limit, deep nesting, number limits) runs per
    /// scale unit, each on a connection of its own.
    static let edgeRounds = 2

    @Test("random and malformed lines: every reply valid JSON-RPC 2.0, the replies promised, no crash, bounded memory")
    func fuzz() async throws {
        let run = ReliabilityRun.current
        run.announce(Self.suite)
        let started = ContinuousClock.now
        var fuzzer = ProtocolFuzzer(random: run.generator(for: Self.suite))

        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay, cities: ["London"]))
        var figures = Figures()

        // Warm up (the first connections side by side, lazily built tables), then measure.
        for _ in 0..<2 {
            try await runConnections(Self.parallelConnections, &fuzzer, daemon: daemon, figures: &figures)
        }
        let rssBefore = try ProcessMemory(pid: daemon.pid).residentKiB

        let target = run.count(Self.baseLines)
        while figures.ordinaryLines < target {
            try await runConnections(Self.parallelConnections, &fuzzer, daemon: daemon, figures: &figures)
            #expect(daemon.process.isRunning, "the daemon died; its log:\n\(daemon.stderrText.suffix(3000))")
            guard daemon.process.isRunning, figures.problems.count < 20 else { break }
        }
        for _ in 0..<run.count(Self.edgeRounds) where daemon.process.isRunning && figures.problems.count < 20 {
            try await runEdgeCases(&fuzzer, daemon: daemon, figures: &figures)
        }

        // Still there and answering, with its memory bounded.
        #expect(daemon.process.isRunning, "the daemon died; its log:\n\(daemon.stderrText.suffix(3000))")
        let version = try await withTimeout(safetyDeadline, "version after the fuzz") { try await daemon.call("version") }
        #expect(version["protocol"]?.intValue == 1, "\(version.serialized)")
        let rssAfter = try ProcessMemory(pid: daemon.pid).residentKiB
        let growthKiB = rssAfter - rssBefore
        #expect(growthKiB < 64 * 1024, "RSS grew from \(rssBefore) KiB to \(rssAfter) KiB")
        #expect(!daemon.stderrText.contains("fatal"), "\(daemon.stderrText.suffix(3000))")
        for problem in figures.problems.prefix(20) {
            Issue.record(Comment(rawValue: problem))
        }

        let elapsed = ContinuousClock.now - started
        let f = figures
        ReliabilityRun.figure(
            Self.suite,
            "connections \(f.connections), lines sent \(f.linesSent) (\(f.bytesSent) bytes; \(f.ordinaryLines) ordinary, \(f.edgeLines) edge cases), batch elements to answer \(f.batchElements)"
        )
        ReliabilityRun.figure(
            Self.suite,
            "replies expected \(f.repliesExpected), received \(f.repliesReceived) (\(f.batchReplies) batch arrays), daemon notifications \(f.notifications), connections closed for an oversized line \(f.oversizedClosed)"
        )
        ReliabilityRun.figure(
            Self.suite, "lines by kind: \(f.kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        ReliabilityRun.figure(
            Self.suite,
            "error codes received: \(f.codes.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")), results \(f.results)"
        )
        ReliabilityRun.figure(
            Self.suite,
            "crashes \(daemon.process.isRunning ? 0 : 1), problems \(f.problems.count), RSS before \(rssBefore) KiB, after \(rssAfter) KiB (growth \(growthKiB) KiB), time \(elapsed)"
        )
    }

    /// Counters for the printed figures, and every problem found.
    struct Figures {
        var connections = 0
        var linesSent = 0
        var ordinaryLines = 0
        var edgeLines = 0
        var bytesSent = 0
        var batchElements = 0
        var repliesExpected = 0
        var repliesReceived = 0
        var batchReplies = 0
        var notifications = 0
        var oversizedClosed = 0
        var results = 0
        var codes: [Int: Int] = [:]
        var kinds: [String: Int] = [:]
        var problems: [String] = []

        mutating func count(_ received: ReceivedLines) {
            repliesReceived += received.replyCount
            batchReplies += received.batches.count
            notifications += received.notifications
            for reply in received.replies + received.batches.flatMap({ $0 }) {
                if let code = reply["error"]?["code"]?.intValue { codes[code, default: 0] += 1 } else { results += 1 }
            }
        }
    }

    /// Connections of ordinary lines, `count` of them side by side (their lines are drawn in
    /// order before any is sent, so a seed always sends the same bytes). On each, the lines are
    /// sent in one go (ended by `\n`, sometimes `\r\n`, the last one sometimes by the end of the
    /// stream), then the sending side is closed and everything is read until the daemon closes.
    private func runConnections(_ count: Int, _ fuzzer: inout ProtocolFuzzer, daemon: DaemonProcess, figures: inout Figures) async throws {
        var connections: [(lines: [FuzzLine], payload: [UInt8])] = []
        for _ in 0..<count {
            fuzzer.newConnection()
            let lines = (0..<fuzzer.random.int(Self.linesPerConnection)).map { _ in fuzzer.line() }
            var payload: [UInt8] = []
            for (index, line) in lines.enumerated() {
                payload += line.bytes
                if index == lines.count - 1 && fuzzer.random.chance(0.1) && !line.bytes.isEmpty { break }  // no final newline
                if fuzzer.random.chance(0.1) { payload.append(UInt8(ascii: "\r")) }
                payload.append(UInt8(ascii: "\n"))
            }
            connections.append((lines, payload))
        }
        let socketPath = daemon.socketPath
        let exchanges = try await withThrowingTaskGroup(of: (Int, RawExchange).self) { group in
            for (index, connection) in connections.enumerated() {
                let payload = connection.payload
                group.addTask { (index, try await RawSocket(path: socketPath).exchange(payload)) }
            }
            var exchanges = [RawExchange?](repeating: nil, count: connections.count)
            for try await (index, exchange) in group { exchanges[index] = exchange }
            return exchanges.compactMap { $0 }
        }
        for ((lines, payload), exchange) in zip(connections, exchanges) {
            let received = record(exchange, of: payload, figures: &figures)
            figures.linesSent += lines.count
            figures.ordinaryLines += lines.count
            for line in lines {
                figures.kinds[line.kind, default: 0] += 1
                figures.repliesExpected += line.expectation.replyLines
                if case .batch(let replies) = line.expectation { figures.batchElements += replies.count }
            }
            figures.problems += received.problems
            figures.problems += matchReplies(lines, received)
        }
    }

    private func exchange(_ payload: [UInt8], daemon: DaemonProcess, figures: inout Figures) async throws -> ReceivedLines {
        record(try await RawSocket(path: daemon.socketPath).exchange(payload), of: payload, figures: &figures)
    }

    /// Counts what an exchange sent and received; sending must not have been cut short.
    private func record(_ exchange: RawExchange, of payload: [UInt8], figures: inout Figures) -> ReceivedLines {
        if let error = exchange.sendError, exchange.sent < payload.count {
            figures.problems.append("the daemon closed the connection after \(exchange.sent) of \(payload.count) bytes (\(error))")
        }
        figures.connections += 1
        figures.bytesSent += exchange.sent
        let received = ReceivedLines(exchange)
        figures.count(received)
        return received
    }

    // MARK: Edge cases, each on a connection of its own

    /// `{"jsonrpc":"2.0","id":ID,"method":"version"}` padded with spaces (before and after) to exactly `length` bytes.
    private func paddedVersion(id: Int64, length: Int, _ fuzzer: inout ProtocolFuzzer) -> [UInt8] {
        let core = Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"version"}"#.utf8)
        let padding = length - core.count
        let before = fuzzer.random.int(0...padding)
        return [UInt8](repeating: UInt8(ascii: " "), count: before) + core + [UInt8](repeating: UInt8(ascii: " "), count: padding - before)
    }

    /// The lines at and over the 64 KiB limit, deep nesting and number limits.
    private func runEdgeCases(_ fuzzer: inout ProtocolFuzzer, daemon: DaemonProcess, figures: inout Figures) async throws {
        let limit = RPCMessage.maxLineBytes  // 65536, as docs/protocol.md says
        #expect(limit == 65536)

        // Exactly 64 KiB: processed. As a version request padded with white space, as a search whose
        // city is too long (-32602), and with a "\r" before the newline (not part of the line).
        try await edge(
            "a line of exactly 65536 bytes", [paddedVersion(id: 1, length: limit, &fuzzer)],
            expecting: [.single(.result(.integer(1)))], daemon: daemon, figures: &figures)
        try await edge(
            "65536 bytes, then \\r\\n", [paddedVersion(id: 2, length: limit, &fuzzer) + [UInt8(ascii: "\r")]],
            expecting: [.single(.result(.integer(2)))], daemon: daemon, figures: &figures)
        let searchCore = #"{"jsonrpc":"2.0","id":3,"method":"search","params":{"city":""}}"#
        let city = String(repeating: "y", count: limit - searchCore.utf8.count)
        let longSearch = Array(#"{"jsonrpc":"2.0","id":3,"method":"search","params":{"city":"\#(city)"}}"#.utf8)
        #expect(longSearch.count == limit)
        try await edge(
            "a search of exactly 65536 bytes", [longSearch], expecting: [.single(.error(.integer(3), -32602))],
            daemon: daemon, figures: &figures)
        try await edge(
            "65536 bytes of [", [[UInt8](repeating: UInt8(ascii: "["), count: limit)],
            expecting: [.single(.error(.null, -32700))], daemon: daemon, figures: &figures)
        // 32768 levels, balanced: RFC 8259 lets a parser limit nesting (-32700); without a limit it
        // is a batch whose one element is not a request.
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: limit / 2) + [UInt8](repeating: UInt8(ascii: "]"), count: limit / 2)
        try await edge(
            "32768 balanced levels of nesting", [deep],
            expecting: [.single(.error(.null, -32700)), .batch([.error(.null, -32600)])], daemon: daemon, figures: &figures)

        // Nesting inside params: modest depth must be parsed (-32602: an unknown param); past a depth
        // limit the parser may refuse (-32700).
        for depth in [1, 8, 30, 61, 62, 63, 64, 65, 100, 1000, 10_000] {
            let text =
                #"{"jsonrpc":"2.0","id":\#(depth),"method":"version","params":{"x":"# + String(repeating: "[", count: depth)
                + String(repeating: "]", count: depth) + "}}"
            let parsed = LineExpectation.single(.error(.integer(Int64(depth)), -32602))
            try await edge(
                "params nested \(depth) deep", [Array(text.utf8)],
                expecting: depth <= 30 ? [parsed] : [parsed, .single(.error(.null, -32700))], daemon: daemon, figures: &figures)
        }

        // Numbers beyond a double: RFC 8259 lets a parser refuse them (-32700); taken, they are not
        // a valid timeout (-32602).
        for number in ["1e400", "-1e400", String(repeating: "9", count: 5000), "1e-400", "0." + String(repeating: "0", count: 5000) + "1"] {
            let text = #"{"jsonrpc":"2.0","id":7,"method":"locate","params":{"timeout":\#(number)}}"#
            try await edge(
                "timeout \(number.prefix(12))… (\(number.count) characters)", [Array(text.utf8)],
                expecting: [.single(.error(.integer(7), -32602)), .single(.error(.null, -32700))], daemon: daemon, figures: &figures)
        }

        // One byte over the limit: -32600 with id null and the connection closed; a request before
        // it is answered, one after it is not read.
        try await oversized(
            "65537 bytes",
            [
                Array(#"{"jsonrpc":"2.0","id":"before","method":"version"}"#.utf8), paddedVersion(id: 8, length: limit + 1, &fuzzer),
                Array(#"{"jsonrpc":"2.0","id":"after","method":"version"}"#.utf8),
            ],
            answered: "before", daemon: daemon, figures: &figures)
        // 100 000 levels of nesting are over the limit too.
        try await oversized(
            "100000 [", [[UInt8](repeating: UInt8(ascii: "["), count: 100_000)], answered: nil, daemon: daemon, figures: &figures)
        // 65537 bytes ending in "\r\r": one "\r" is dropped, the line is still one byte too long.
        try await oversized(
            "65536 bytes + \\r\\r", [paddedVersion(id: 9, length: limit, &fuzzer) + [UInt8(ascii: "\r"), UInt8(ascii: "\r")]],
            answered: nil, daemon: daemon, figures: &figures)
        // 256 KiB without any newline, then the end of the stream.
        try await oversized(
            "256 KiB without a newline", [[UInt8](repeating: UInt8(ascii: "x"), count: 256 * 1024)], answered: nil,
            newline: false, daemon: daemon, figures: &figures)

        // After all that, on a new connection, the daemon answers.
        let (idText, id) = fuzzer.id()
        try await edge(
            "a request after the edge cases", [Array(#"{"jsonrpc":"2.0","id":\#(idText),"method":"state"}"#.utf8)],
            expecting: [.single(.result(id))], daemon: daemon, figures: &figures)
    }

    /// Sends `lines` on a connection of its own; what arrives must be exactly one of `expecting`
    /// (alternatives for a single line, or the expectation of each line when there are several).
    private func edge(
        _ what: String, _ lines: [[UInt8]], expecting alternatives: [LineExpectation], daemon: DaemonProcess, figures: inout Figures
    ) async throws {
        let payload = lines.flatMap { $0 + [UInt8(ascii: "\n")] }
        let received = try await exchange(payload, daemon: daemon, figures: &figures)
        figures.linesSent += lines.count
        figures.edgeLines += lines.count
        figures.kinds["edge case", default: 0] += lines.count
        figures.repliesExpected += 1
        figures.problems += received.problems.map { "\(what): \($0)" }
        let fuzzLines = alternatives.map { FuzzLine(bytes: lines[0], expectation: $0, kind: what) }
        let outcomes = fuzzLines.map { matchReplies([$0], received) }
        if !outcomes.contains(where: \.isEmpty) {
            figures.problems.append(
                "\(what): none of the acceptable answers arrived: \(outcomes.map { $0.joined(separator: "; ") }.joined(separator: " | or | "))"
            )
        }
    }

    /// Sends `lines`, one of which is over the limit: exactly one `-32600` with id null must
    /// arrive for it, the reply to the request with id `answered` (sent before it) too, nothing
    /// else; then the daemon closes the connection.
    private func oversized(
        _ what: String, _ lines: [[UInt8]], answered: String?, newline: Bool = true, daemon: DaemonProcess, figures: inout Figures
    ) async throws {
        var payload = lines.flatMap { $0 + [UInt8(ascii: "\n")] }
        if !newline { payload.removeLast() }
        let socket = try RawSocket(path: daemon.socketPath)
        // The daemon closes as soon as the line is over the limit: sending the rest may fail then.
        let exchange = try await socket.exchange(payload)
        figures.connections += 1
        figures.bytesSent += exchange.sent
        figures.linesSent += lines.count
        figures.edgeLines += lines.count
        figures.kinds["edge case", default: 0] += lines.count
        let received = ReceivedLines(exchange)
        figures.count(received)
        figures.problems += received.problems.map { "\(what): \($0)" }
        var expected: [FuzzLine] = []
        if let answered { expected.append(FuzzLine(bytes: lines[0], expectation: .single(.result(.string(answered))), kind: what)) }
        expected.append(FuzzLine(bytes: [], expectation: .single(.error(.null, -32600)), kind: what))
        figures.repliesExpected += expected.count
        figures.problems += matchReplies(expected, received).map { "\(what): \($0)" }
        if received.problems.isEmpty && received.replies.contains(where: { $0["id"] == .null && $0["error"]?["code"]?.intValue == -32600 })
        {
            figures.oversizedClosed += 1
        }
    }
}
