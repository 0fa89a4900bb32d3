import Foundation
import Testing
import WeatherCore

@testable import TestSupport

/// An idle daemon sleeps: no timer wakes any of its threads while nothing happens. Swift's default
/// executor (libdispatch's global queues) would: its first job starts a monitor that wakes the
/// process every second for the rest of its life. The daemon's tasks run on its own executor and
/// its clock sleeps on an event loop's timer, so no job ever reaches those queues.
@Suite("idle", .processTimeLimit)
struct IdleTests {
    /// How many times each thread of process `pid` was scheduled (voluntary and involuntary context
    /// switches), by thread id and name.
    static func schedulings(pid: Int32) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for thread in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            guard let status = try? procText("/proc/\(pid)/task/\(thread)/status") else { continue }  // it ended
            var name = ""
            var switches = 0
            for line in status.split(separator: "\n") {
                let fields = line.split(whereSeparator: \.isWhitespace)
                if fields.first == "Name:" { name = fields.dropFirst().joined(separator: " ") }
                if fields.first?.hasSuffix("ctxt_switches:") == true { switches += fields.dropFirst().first.flatMap { Int($0) } ?? 0 }
            }
            counts["\(thread) \(name)"] = switches
        }
        return counts
    }

    @Test("after the watched cities' round, a search and a map region, no thread wakes for 3 s (within 30 s)")
    func idleDaemonDoesNotWake() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay, cities: ["London", "Paris"]))
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the watched cities' round to settle", where: isSettledState)
        // Each kind of work once: a search (the session's task), a region (its debounce and grid).
        _ = try await daemon.call("search", ["city": "Berlin"])
        try await watcher.next("the search to settle", where: isSettledState)
        let region: JSONObject = ["center": .object(["lat": .double(-20), "lon": .double(-120)])]
        _ = try await daemon.call("region", region)
        try await watcher.next("the region's grid to settle") {
            isSettledState($0) && $0.params?["input"]?["kind"] == "region"
        }
        await watcher.close()

        // What follows a change (the places written, the alerts asked for) ends within a few seconds;
        // then the daemon waits for nothing but its refresh timer, minutes away. A timer that ticks
        // every second or two leaves no quiet window at all.
        let window = Duration.seconds(3)
        var last = try Self.schedulings(pid: daemon.pid)
        var woken: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        repeat {
            try await Task.sleep(for: window)
            let now = try Self.schedulings(pid: daemon.pid)
            woken = now.filter { $0.value != last[$0.key] }.map { "\($0.key): +\($0.value - (last[$0.key] ?? 0))" }.sorted()
            last = now
        } while !woken.isEmpty && ContinuousClock.now < deadline
        #expect(woken.isEmpty, "threads woken in the last \(window) window: \(woken)")
    }
}
