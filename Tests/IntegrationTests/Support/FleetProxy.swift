import Foundation
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `scripts/fleet-proxy.sh` running Debian's nginx in the foreground on 127.0.0.1 (a free port), its
/// configuration, logs and cache in `directory`. SIGKILLed with its process group (nginx's master and
/// workers) when the object goes away without ``stop()``.
final class FleetProxy: Sendable {
    let process: ChildProcess
    let port: Int
    let directory: String

    var baseURL: String { "http://127.0.0.1:\(port)" }
    /// The URL a device's `base_url` is for one upstream (`openweathermap`, `open-meteo`, …).
    func url(_ prefix: String) -> String { baseURL + "/" + prefix }

    static var script: String { TestEnvironment.packageRoot + "/scripts/fleet-proxy.sh" }

    /// Starts the script with `--listen 127.0.0.1:PORT --dir DIRECTORY` and `arguments`, and waits
    /// for its `fleet-proxy listening on` line (nginx answers then).
    static func start(directory: String, _ arguments: [String]) async throws -> FleetProxy {
        let port = try freeTCPPort()
        // Started as from a shell: the test process's threads block most signals, and a child
        // inherits the mask of the thread that starts it; python3 clears it before it execs bash.
        let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        let process = try await ChildProcess(
            "/usr/bin/python3", ["-c", unblocked, "/bin/bash", script, "--listen", "127.0.0.1:\(port)", "--dir", directory] + arguments,
            environment: TestEnvironment.childEnvironment(), name: "fleet-proxy.sh")
        let proxy = FleetProxy(process: process, port: port, directory: directory)
        do {
            _ = try await process.waitForLine(
                containing: "fleet-proxy listening on http://127.0.0.1:\(port)", on: \.stdout, timeout: .seconds(30))
        } catch {
            throw ChildProcessError(message: "\(error)\nits stderr:\n\(process.stderrText)")
        }
        return proxy
    }

    private init(process: ChildProcess, port: Int, directory: String) {
        self.process = process
        self.port = port
        self.directory = directory
    }

    deinit {
        if process.isRunning { process.killProcessGroup() }
    }

    /// SIGTERM to the script; returns how it ended.
    @discardableResult
    func stop(timeout: Duration = safetyDeadline) async throws -> Termination {
        process.send(SIGTERM)
        return try await process.waitForExit(timeout: timeout)
    }

    /// A file of its directory (`access.log`, `upstream.log`, `error.log`, `nginx.pid`…) as text; empty
    /// when it is not there.
    func file(_ name: String) -> String {
        (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
    }

    /// The lines of `access.log`: one per device request, `… "GET /PREFIX/PATH?QUERY" STATUS … cache=STATUS`.
    var accessLog: [String] { file("access.log").split(separator: "\n").map(String.init) }

    /// `GET target` on the proxy.
    func get(_ target: String) async throws -> HTTPAnswer {
        try await httpRequest(port: port, target)
    }
}
