import Foundation
import Testing
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `make run` as a newcomer meets it: the offline demo (scripts/run-demo.sh) stopping cleanly however
/// it is stopped.
@Suite("make run's demo")
struct DemoTests {
    @Test(
        "stopped by a signal to its process group (Ctrl-C, SIGTERM, SIGHUP: the terminal closed), it leaves no process or socket",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func stops(signal: Int32) async throws {
        let demo = try await DemoRun.start()
        defer { demo.killAll() }
        let started = try demo.started()
        #expect(Set(started.map(\.what)) == ["owm-replay", "gpsfake", "weatherd"], "\(started)")
        #expect(FileManager.default.fileExists(atPath: demo.socket))
        let gpsfake = try #require(started.first { $0.what == "gpsfake" })
        let gpsfakeDirectory = try #require(gpsfake.directory)
        #expect(FileManager.default.fileExists(atPath: gpsfakeDirectory + "/gpsfake-\(gpsfake.pid).sock"))
        #expect(DemoRun.members(ofGroup: gpsfake.pid).count == 2, "gpsfake and its gpsd")

        kill(-demo.process.pid, signal)
        let ended = try await demo.process.waitForExitAndOutput(timeout: .seconds(20))
        #expect(ended.exitedNormally && ended.status == 128 + signal, "\(ended)\n\(demo.process.stderrText)")

        for entry in started {
            #expect(!DemoRun.exists(entry.pid), "\(entry.what) (pid \(entry.pid)) is still there")
        }
        #expect(DemoRun.members(ofGroup: gpsfake.pid).isEmpty, "gpsd or gpsfake left in gpsfake's group")
        #expect(DemoRun.members(ofGroup: demo.process.pid).isEmpty, "a process left in the demo's group")
        #expect(!FileManager.default.fileExists(atPath: gpsfakeDirectory), "gpsfake's control socket left behind")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/gpsfake-\(gpsfake.pid).sock"))
        #expect(!FileManager.default.fileExists(atPath: demo.socket), "weatherd's socket left behind")
        #expect(!FileManager.default.fileExists(atPath: demo.runDirectory + "/demo.pids"))
        // Nothing answers on gpsfake's port any more.
        let probe = try await runCommand(
            "/bin/bash", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(demo.gpsdPort)"], environment: TestEnvironment.childEnvironment())
        #expect(probe.status != 0, "something still listens on gpsfake's port \(demo.gpsdPort)")
    }

    @Test("a gpsfake a killed demo left on the port is ended at the next start, not used")
    func leftover() async throws {
        let first = try await DemoRun.start()
        defer { first.killAll() }
        let gpsfake = try #require(try first.started().first { $0.what == "gpsfake" })
        // SIGKILL: the script's traps never run; gpsfake and its gpsd stay on the port.
        first.process.killProcessGroup()
        // (Foundation sees the script's end only once gpsfake, which inherited its descriptors, is gone.)
        _ = try await first.process.exited.wait(for: "run-demo.sh killed", timeout: .seconds(10)) { $0 }
        #expect(!DemoRun.members(ofGroup: gpsfake.pid).isEmpty)

        let second = try await DemoRun.start(after: first)
        defer { second.killAll() }
        #expect(second.process.stderrText.contains("an earlier demo left behind"), "\(second.process.stderrText)")
        #expect(second.process.stderrText.contains("gpsfake replays"), "\(second.process.stderrText)")
        #expect(DemoRun.members(ofGroup: gpsfake.pid).isEmpty, "the left gpsfake still runs")
        kill(-second.process.pid, SIGTERM)
        try await second.process.waitForExit(timeout: .seconds(20))
    }
}
