import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// gpsd going away and coming back, again and again (docs/protocol.md, "Locations (gpsd)"): the
/// daemon notices the loss, keeps serving, reconnects with backoff — 1 s doubling to at most 30 s
/// apart (no configuration key changes it) — and `locate` works again each time. Each round gpsd
/// (gpsfake's process group) is killed and, after a random downtime, a new one is started on the
/// same port; the reconnection must come within the backoff that downtime allows.
@Suite("Reliability: gpsd killed and restarted", .serialized)
struct ReliabilityGPSDRestartTests {
    static let suite = "gpsd restarts"
    static let baseRounds = 3
    /// Where bu353s4.log's fix is looked up: Hamilton, NZ.
    static let hamiltonID = "owm:2190324"
    /// The longest wait between two connection attempts (docs/protocol.md).
    static let maxBackoff = 30.0
    /// What a loaded machine may add to a wait (starting gpsd's first report, scheduling).
    static let slack = 5.0

    @Test(
        "gpsd killed and restarted on the same port, round after round: the loss is seen, the daemon serves, reconnects within the backoff and locates again"
    )
    func restarts() async throws {
        let run = ReliabilityRun.current
        run.announce(Self.suite)
        let started = ContinuousClock.now
        var random = run.generator(for: Self.suite)

        var gps = try await GPSFake.start(NMEALog.bu353s4)
        let port = gps.port
        defer { gps.kill() }
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.gpsd = GPSDSettings(port: port)
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath, params: ["topics": .array(["state"])])

        try await awaitConnected(watcher, true, timeout: .seconds(10))
        #expect(try await locate(daemon)["id"]?.stringValue == Self.hamiltonID)

        var lines: [String] = []
        let rounds = run.count(Self.baseRounds)
        for round in 1...rounds {
            // Down for a random while: none at all, or long enough for the backoff to double a few times.
            let downtime = random.chance(0.25) ? 0 : random.double(0.2, 4)
            // Sometimes a locate already waits while gpsd is away: it gets the first fix after the return.
            let spanning = random.chance(0.5)
            let killed = ContinuousClock.now
            try await gps.stop()
            try await awaitConnected(watcher, false)
            let noticed = ContinuousClock.now - killed
            // Meanwhile the daemon serves: version at once, a short locate has no fix.
            #expect(try await daemon.call("version")["protocol"]?.intValue == 1)
            if downtime >= 0.6 {
                let error = try await remoteError { try await locate(daemon, timeout: 0.5) }
                #expect(error.code == -32005, "round \(round): \(error.json.serialized)")
            }
            let waiting = spanning ? Task { try await locate(daemon, timeout: 45) } : nil
            // The downtime is the experiment's input, not a condition to await.
            let remaining = Duration.seconds(downtime) - (ContinuousClock.now - killed)
            if remaining > .zero { try await Task.sleep(for: remaining) }

            let launched = ContinuousClock.now
            gps = try await GPSFake.start(NMEALog.bu353s4, port: port)
            // gpsd accepts connections from here on (GPSFake.start polls for that, so the daemon
            // may have connected already).
            let up = ContinuousClock.now
            let down = (up - killed).seconds
            // Attempts are 1, 2, 4 … s apart (at most 30): gpsd back after `down` seconds is tried
            // again at most min(30, down + 1) seconds later.
            let allowed = min(Self.maxBackoff, down + 1) + Self.slack
            try await awaitConnected(watcher, true, timeout: .seconds(allowed))
            let reconnected = (ContinuousClock.now - launched).seconds
            if let waiting {
                let feature = try await waiting.value
                #expect(
                    feature["id"]?.stringValue == Self.hamiltonID,
                    "round \(round), the locate sent while gpsd was away: \(feature.serialized)")
            }
            let feature = try await locate(daemon)
            #expect(feature["id"]?.stringValue == Self.hamiltonID, "round \(round): \(feature.serialized)")
            #expect(feature["properties"]?["source"] == "location", "round \(round)")
            let located = (ContinuousClock.now - launched).seconds
            #expect(daemon.process.isRunning)
            lines.append(
                String(
                    format:
                        "round %d: loss seen %.2f s after the kill, gpsd down %.2f s (its start took %.2f s), reconnected %.2f s after its start began (allowed %.1f s after it answered), located after %.2f s%@",
                    round, noticed.seconds, down, (up - launched).seconds, reconnected, allowed, located,
                    spanning ? " (and a locate sent while it was away)" : ""))
        }

        await watcher.close()
        try await gps.stop()
        let ended = try await daemon.terminate()
        #expect(ended.status == 0, "\(daemon.stderrText.suffix(2000))")
        for line in lines { ReliabilityRun.figure(Self.suite, line) }
        ReliabilityRun.figure(Self.suite, "rounds \(rounds), daemon crashes 0, time \(ContinuousClock.now - started)")
    }
}

extension Duration {
    /// This duration in seconds, as a number.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
