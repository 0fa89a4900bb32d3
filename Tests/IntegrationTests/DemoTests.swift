import Foundation
import Testing
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `make run` as a newcomer meets it: the README's `weatherctl` examples, run as written against the
/// offline demo (scripts/run-demo.sh), and the demo stopping cleanly however it is stopped.
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
        // The last gpsfake: the script starts it anew when its gpsd got no device (gpsfake's race).
        let gpsfake = try #require(started.last { $0.what == "gpsfake" })
        let gpsfakeDirectory = try #require(gpsfake.directory)
        #expect(FileManager.default.fileExists(atPath: gpsfakeDirectory + "/gpsfake-\(gpsfake.pid).sock"))
        #expect(DemoRun.members(ofGroup: gpsfake.pid).count == 2, "gpsfake and its gpsd")
        // Off a terminal, the script runs no watcher of its parent and terminal.
        #expect(DemoRun.watchers(of: demo.process.pid).isEmpty)

        kill(-demo.process.pid, signal)
        let ended = try await demo.process.waitForExitAndOutput(timeout: .seconds(20))
        #expect(ended.exitedNormally && ended.status == 128 + signal, "\(ended)\n\(demo.process.stderrText)")

        for entry in started {
            #expect(!DemoRun.exists(entry.pid), "\(entry.what) (pid \(entry.pid)) is still there")
        }
        #expect(DemoRun.members(ofGroup: gpsfake.pid).isEmpty, "gpsd or gpsfake left in gpsfake's group")
        #expect(DemoRun.members(ofGroup: demo.process.pid).isEmpty, "a process left in the demo's group")
        #expect(!FileManager.default.fileExists(atPath: gpsfakeDirectory), "gpsfake's control socket left behind")
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
        let gpsfake = try #require(try first.started().last { $0.what == "gpsfake" })
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

    @Test("every weatherctl example of the README works as written against the demo, and prints what its comment says it prints")
    func readmeExamples() async throws {
        let examples = try ReadmeExamples.read()
        // The README and this test's table of shapes name the same commands: a new example needs its shape here.
        let unknown = examples.commands.filter { ReadmeExamples.shapes[$0] == nil }
        #expect(unknown.isEmpty, "README examples this test has no shape for: \(unknown)")
        let gone = ReadmeExamples.shapes.keys.filter { !examples.commands.contains($0) }.sorted()
        #expect(gone.isEmpty, "shapes for commands the README no longer has: \(gone)")
        #expect(
            examples.setup == [#"export WEATHERD_SOCKET=run/weatherd.sock"#, #"export PATH="$(swift build --show-bin-path):$PATH""#],
            "\(examples.setup)")

        // What each example prints, as its comment says (where it says what it prints, not what it is).
        let said = examples.commands.filter {
            if case .prose = ReadmeExamples.shapes[$0]?.readme { false } else { true }
        }
        #expect(said.count >= 10, "\(said)")
        #expect(said.allSatisfy { examples.comments[$0]?.isEmpty == false }, "\(examples.comments)")

        let demo = try await DemoRun.start()
        defer { demo.killAll() }
        // The demo's OpenWeatherMap fails for the watched Enschede at the start, and is left out for its
        // backoff: the examples begin once it is usable again, as they do for someone who reads them.
        let watcher = try await Watcher.start(socketPath: demo.socket, params: ["topics": .array([.string("state")])])
        try await watcher.next("OpenWeatherMap usable", timeout: .seconds(60)) {
            $0.isStateNotification && $0.params?["providers"]?.arrayValue?.first?["usable"]?.boolValue == true
                && $0.params?["running"]?.boolValue == false
        }
        for command in examples.commands {
            guard let shape = ReadmeExamples.shapes[command] else { continue }
            let result = try await examples.run(command, in: demo, until: shape.untilFirstLine)
            // A region is looked up after its reply (debounced): the next example begins once its grid
            // has settled, as it does for someone who reads them, however slow the machine.
            let words = command.split(separator: " ")
            if result.status == 0, words.count >= 4, words[1] == "region", let lat = Double(words[2]) {
                try await watcher.next("the region at \(lat) settled") {
                    isSettledState($0) && $0.params?["input"]?["kind"] == "region"
                        && abs(($0.params?["input"]?["center"]?["lat"]?.doubleValue ?? .nan) - lat) < 1e-6
                }
            }
            #expect(result.status == shape.status, "\(command): \(result)")
            if let problem = shape.check(result.stdout, result.stderr) {
                Issue.record("\(command): \(problem)\n\(result)")
            }
            if let problem = shape.readme.problem(comment: examples.comments[command] ?? [], stdout: result.stdout, stderr: result.stderr) {
                Issue.record("\(command): \(problem)")
            }
        }
        await watcher.close()
        kill(-demo.process.pid, SIGTERM)
        try await demo.process.waitForExit(timeout: .seconds(20))
    }

    @Test("the README names every package make run and make test install (scripts/install-deps.sh: build, test, browser)")
    func readmePackages() throws {
        let script = try String(contentsOfFile: TestEnvironment.packageRoot + "/scripts/install-deps.sh", encoding: .utf8)
        var packages: [String] = []
        for line in script.split(separator: "\n") {
            let code = line.trimmingCharacters(in: .whitespaces)
            guard code.hasPrefix("packages=(") || code.hasPrefix("test)") || code.hasPrefix("browser)"),
                let open = code.firstIndex(of: "("), let close = code[code.index(after: open)...].firstIndex(of: ")")
            else { continue }
            let list =
                code.hasPrefix("packages=(")
                ? code[code.index(after: open)..<close] : code.split(separator: "(").dropFirst().first?.prefix { $0 != ")" } ?? ""
            packages += list.split(separator: " ").map(String.init)
        }
        #expect(packages.count > 10 && packages.contains("fonts-noto-color-emoji"), "\(packages)")
        let readme = try String(contentsOfFile: TestEnvironment.packageRoot + "/README.md", encoding: .utf8)
        let missing = Set(packages).filter { !readme.contains("`\($0)`") }.sorted()
        #expect(missing.isEmpty, "packages scripts/install-deps.sh installs that the README does not name: \(missing)")
    }
}
