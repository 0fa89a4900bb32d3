import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Restarts, signals and durable city changes.
@Suite("lifecycle")
struct LifecycleTests {
    @Test("cities.add/remove are kept across SIGKILL and restarts; an unknown city is not stored")
    func durableCities() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])

        var daemon = try await DaemonProcess.start(setup)
        let added = try await daemon.weatherctl(["cities", "add", "Paris"])
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout.split(separator: "\n") == ["London", "Paris"], "\(added)")
        #expect(try await daemon.weatherctl(["cities"]).stdout.split(separator: "\n") == ["London", "Paris"])
        // The added city is watched at once.
        #expect(try await daemon.call("overlays").featureIDs.contains("owm:2988507"))
        try await daemon.kill()

        daemon = try await DaemonProcess.start(setup)
        let afterKill = try await daemon.weatherctl(["cities"])
        #expect(afterKill.status == 0)
        #expect(afterKill.stdout.split(separator: "\n") == ["London", "Paris"], "Paris survives SIGKILL: \(afterKill)")
        let removed = try await daemon.weatherctl(["cities", "remove", "london"])
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.stdout.split(separator: "\n") == ["Paris"], "\(removed)")
        try await daemon.kill()

        daemon = try await DaemonProcess.start(setup)
        #expect(try await daemon.weatherctl(["cities"]).stdout.split(separator: "\n") == ["Paris"], "London stays removed")
        let atlantis = try await daemon.weatherctl(["cities", "add", "Atlantis"])
        #expect(atlantis.status == 1, "\(atlantis)")
        #expect(atlantis.stderr == "weatherctl: city not found: Atlantis\n", "\(atlantis)")
        let notWatched = try await daemon.weatherctl(["cities", "remove", "Atlantis"])
        #expect(notWatched.status == 1, "\(notWatched)")
        #expect(try await daemon.call("cities")["cities"] == JSONValue.array(["Paris"]))
        let stored = (try? String(contentsOfFile: setup.stateDirectory + "/cities.json", encoding: .utf8)) ?? ""
        #expect(!stored.contains("Atlantis"), "\(stored)")
        let (status, _) = try await daemon.terminate()
        #expect(status == 0)

        daemon = try await DaemonProcess.start(setup)
        #expect(try await daemon.call("cities")["cities"] == JSONValue.array(["Paris"]))
    }

    @Test("SIGTERM: exit 0 with a watcher connected; the socket file is removed")
    func sigterm() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay, cities: ["London"]))
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the city round to settle", where: isSettledState)
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath))

        // The contract's second is a speed claim (the figure is printed): the test awaits the exit.
        let (status, elapsed) = try await daemon.terminate(timeout: .seconds(60))
        #expect(status == 0, "\(daemon.stderrText)")
        print("SIGTERM with a watcher connected: exit after \(elapsed.formatted(.units(allowed: [.milliseconds])))")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket file is left behind")
        _ = try await watcher.waitUntilEnded()  // the daemon closed the watcher's connection
        try await daemon.process.waitForExitAndOutput()
        #expect(daemon.stderrText.contains("weatherd stopped"), "\(daemon.stderrText)")
    }

    @Test("SIGINT shuts down cleanly too")
    func sigint() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: nil))
        let sent = ContinuousClock.now
        daemon.process.send(SIGINT)
        let (ended, at) = try await daemon.process.waitForExitTime(timeout: .seconds(60))
        #expect(ended.exitedNormally && ended.status == 0, "\(ended)")
        print("SIGINT: exit after \((at - sent).formatted(.units(allowed: [.milliseconds])))")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }
}
