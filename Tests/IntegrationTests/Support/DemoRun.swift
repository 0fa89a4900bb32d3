import Foundation

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `make run`'s offline demo: scripts/run-demo.sh itself (owm-replay, gpsfake and its gpsd, weatherd),
/// in a process group of its own, with its run directory `run/` in a temporary directory (the
/// directory the README's commands are run from), gpsfake on a free port and the map on any port.
final class DemoRun: Sendable {
    let directory: TemporaryDirectory
    let process: ChildProcess
    let gpsdPort: Int

    /// The demo's `run/` (`WEATHERD_DEMO_DIR`).
    var runDirectory: String { directory.file("run") }
    var socket: String { runDirectory + "/weatherd.sock" }

    private init(directory: TemporaryDirectory, process: ChildProcess, gpsdPort: Int) {
        self.directory = directory
        self.process = process
        self.gpsdPort = gpsdPort
    }

    /// Starts the demo and waits until weatherd serves its socket and the map and is connected to gpsfake's gpsd.
    /// `previous`: start it again in that demo's directory, on its gpsd port (as a second `make run`).
    static func start(after previous: DemoRun? = nil) async throws -> DemoRun {
        let directory = try previous?.directory ?? TemporaryDirectory()
        let port = try previous?.gpsdPort ?? freeTCPPort()
        // Started as from a shell: the test process's threads block most signals, and a child
        // inherits the mask of the thread that starts it; python3 clears it before it execs bash.
        let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        let process = try await ChildProcess(
            "/usr/bin/python3", ["-c", unblocked, "/bin/bash", TestEnvironment.packageRoot + "/scripts/run-demo.sh"],
            environment: TestEnvironment.childEnvironment([
                "WEATHERD_BIN_DIR": TestEnvironment.binDirectory,
                "WEATHERD_DEMO_DIR": directory.file("run"),
                "WEATHERD_DEMO_GPSD_PORT": String(port),
                "WEATHERD_DEMO_WEB_PORT": "0",
            ]), name: "run-demo.sh")
        let demo = DemoRun(directory: directory, process: process, gpsdPort: port)
        do {
            _ = try await process.waitForLine(containing: "map page at", on: \.stderr, timeout: .seconds(60))
            _ = try await process.waitForLine(containing: "connected to gpsd at", on: \.stderr, timeout: .seconds(30))
            _ = try await process.waitForLine(containing: "weatherd: listening on", on: \.stderr, timeout: .seconds(30))
        } catch {
            demo.killAll()
            throw error
        }
        return demo
    }

    /// What the demo records that it started (`run/demo.pids`): `(what, pid, gpsfake's TMPDIR)`.
    func started() throws -> [(what: String, pid: Int32, directory: String?)] {
        try String(contentsOfFile: runDirectory + "/demo.pids", encoding: .utf8).split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ").map(String.init)
            guard parts.count >= 2, let pid = Int32(parts[1]) else { return nil }
            return (parts[0], pid, parts.count > 2 ? parts[2] : nil)
        }
    }

    /// For a test that failed half-way: SIGKILL to the demo's group and to gpsfake's.
    func killAll() {
        for entry in (try? started()) ?? [] where entry.what == "gpsfake" { kill(-entry.pid, SIGKILL) }
        process.killProcessGroup()
    }

    /// The processes (pids) of process group `group` still there (zombies too).
    static func members(ofGroup group: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            // After "pid (comm) ": state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[2]) == group
        }
    }

    /// The script's watcher (a process group of its own: `bash -c … watcher PARENT LEADER SCRIPT …`) of
    /// the demo whose script is `script`, while it runs.
    static func watchers(of script: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let name = arguments.firstIndex(of: "watcher") else { return false }
            return arguments[name...].dropFirst().prefix(3).contains(String(script))
        }
    }

    /// Whether process `pid` is there (a zombie too).
    static func exists(_ pid: Int32) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/\(pid)")
    }
}
