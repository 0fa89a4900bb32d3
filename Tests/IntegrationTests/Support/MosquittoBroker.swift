import Foundation
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real Mosquitto broker (Debian's `mosquitto`) on a loopback port, with a config file of its own
/// in `directory`: anonymous, or only the `users` given (a password file made with `mosquitto_passwd`).
/// No persistence: a broker started again on the same port knows no retained message.
final class MosquittoBroker: Sendable {
    static let mosquitto = "/usr/sbin/mosquitto"

    let port: Int
    let process: ChildProcess

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = process
    }

    /// Starts a broker on `port` (default: a free one) and waits until it serves.
    /// With `tls`, the listener speaks TLS with that certificate and key (PEM files). `config`:
    /// more lines for its config file, e.g. `log_type all` (every packet in its log) or
    /// `max_packet_size 2048`.
    static func start(
        in directory: TemporaryDirectory, port: Int? = nil, users: [String: String] = [:], tls: (certificate: String, key: String)? = nil,
        config extraLines: [String] = []
    ) async throws -> MosquittoBroker {
        let port = try port ?? freeTCPPort()
        var lines = [
            "listener \(port) 127.0.0.1", "log_dest stderr", "log_type error", "log_type warning", "log_type notice",
            "log_type information", "persistence false",
        ]
        // Started as root, mosquitto would become the user `mosquitto`, who cannot read this directory.
        if getuid() == 0 { lines.append("user root") }
        if let tls { lines += ["certfile \(tls.certificate)", "keyfile \(tls.key)"] }
        if users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            let passwords = directory.file("mosquitto-passwords")
            for (index, (user, password)) in users.sorted(by: { $0.key < $1.key }).enumerated() {
                let made = try await runCommand(
                    "/usr/bin/mosquitto_passwd", (index == 0 ? ["-c"] : []) + ["-b", passwords, user, password],
                    environment: TestEnvironment.childEnvironment())
                guard made.status == 0 else { throw ChildProcessError(message: "mosquitto_passwd failed: \(made)") }
            }
            lines += ["allow_anonymous false", "password_file \(passwords)"]
        }
        lines += extraLines
        let config = try directory.write("mosquitto-\(port).conf", lines.joined(separator: "\n") + "\n")
        let process = try await ChildProcess(
            mosquitto, ["-c", config], environment: TestEnvironment.childEnvironment(), name: "mosquitto:\(port)")
        _ = try await process.waitForLine(containing: "running", on: \.stderr)
        return MosquittoBroker(port: port, process: process)
    }

    /// Stops the broker at once (SIGKILL: a child started from the test process may have SIGTERM
    /// blocked, which mosquitto does not undo) and waits until it is gone and its port free again.
    func stop() async throws {
        guard process.isRunning else { return }
        process.send(SIGKILL)
        _ = try await process.waitForExit()
    }

    deinit {
        if process.isRunning {
            process.send(SIGCONT)
            process.send(SIGKILL)
        }
    }

    var url: String { "mqtt://127.0.0.1:\(port)" }

    /// A self-signed certificate for 127.0.0.1 and its key, made with openssl in `directory`.
    static func selfSignedCertificate(in directory: TemporaryDirectory) async throws -> (certificate: String, key: String) {
        let (certificate, key) = (directory.file("broker-cert.pem"), directory.file("broker-key.pem"))
        let made = try await runCommand(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ],
            environment: TestEnvironment.childEnvironment())
        guard made.status == 0 else { throw ChildProcessError(message: "openssl failed: \(made)") }
        return (certificate, key)
    }

    /// `mosquitto_sub` options to reach this broker (`-p PORT`, and the user when given).
    func clientOptions(user: (String, String)? = nil) -> [String] {
        ["-h", "127.0.0.1", "-p", "\(port)"] + (user.map { ["-u", $0.0, "-P", $0.1] } ?? [])
    }

    /// The retained messages of `topics` (one each), with `mosquitto_sub`: an independent client.
    /// `--retained-only` stops at the first message that is not retained (one published while it
    /// reads): then it reads again, until every topic came back, retained.
    func retained(_ topics: [String], user: (String, String)? = nil) async throws -> [String: String] {
        var arguments = clientOptions(user: user) + ["-v", "-C", "\(topics.count)", "-W", "20", "--retained-only"]
        for topic in topics { arguments += ["-t", topic] }
        var attempts = 0
        while true {
            let result = try await runCommand(
                "/usr/bin/mosquitto_sub", arguments, environment: TestEnvironment.childEnvironment(), timeout: .seconds(30))
            guard result.status == 0 else { throw ChildProcessError(message: "mosquitto_sub \(topics) failed: \(result)") }
            var messages: [String: String] = [:]
            for line in result.stdout.split(separator: "\n") {
                guard let space = line.firstIndex(of: " ") else { continue }
                messages[String(line[..<space])] = String(line[line.index(after: space)...])
            }
            if topics.allSatisfy({ messages[$0] != nil }) { return messages }
            attempts += 1
            guard attempts < 5 else {
                throw ChildProcessError(
                    message: "mosquitto_sub \(topics): only \(messages.keys.sorted()) came back retained, \(attempts) times")
            }
        }
    }

    /// The lines of the broker's log (its stderr) that contain `text`.
    func logLines(containing text: String) -> [String] {
        process.stderrText.split(separator: "\n").filter { $0.contains(text) }.map(String.init)
    }

    /// Waits until `count` lines of the broker's log contain `text`.
    func waitForLog(containing text: String, count: Int = 1, timeout: Duration = safetyDeadline) async throws {
        _ = try await waitForLog("\(count) lines with \"\(text)\"", timeout: timeout) { lines in
            lines.filter { $0.contains(text) }.count >= count ? true : nil
        }
    }

    /// Waits until `check` finds what it looks for in the complete lines of the broker's log.
    func waitForLog<R: Sendable>(
        _ what: String, timeout: Duration = safetyDeadline, _ check: @escaping ([Substring]) -> R?
    ) async throws -> R {
        try await process.stderr.wait(for: "mosquitto to log \(what)", timeout: timeout) { captured -> R? in
            check(Array(captured.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()))  // the last one is incomplete
        }
    }

    /// A `mosquitto_sub` that runs until killed, printing `-F format` per message; returned once its
    /// subscription is acknowledged (so nothing published afterwards is missed).
    func subscriber(_ topics: [String], format: String = "%t %p", extra: [String] = []) async throws -> ChildProcess {
        var arguments = clientOptions() + ["-d", "-F", format] + extra
        for topic in topics { arguments += ["-t", topic] }
        // Line-buffered: mosquitto_sub flushes after a message, not after its debug lines.
        let process = try await ChildProcess(
            "/usr/bin/stdbuf", ["-oL", "/usr/bin/mosquitto_sub"] + arguments, environment: TestEnvironment.childEnvironment(),
            name: "mosquitto_sub")
        _ = try await process.waitForLine(containing: "SUBACK", on: \.stdout)
        return process
    }

    /// Publishes one message with `mosquitto_pub`.
    func publish(_ topic: String, _ payload: String, extra: [String] = []) async throws {
        let result = try await runCommand(
            "/usr/bin/mosquitto_pub", clientOptions() + extra + ["-t", topic, "-m", payload],
            environment: TestEnvironment.childEnvironment())
        guard result.status == 0 else { throw ChildProcessError(message: "mosquitto_pub failed: \(result)") }
    }
}

extension DaemonSetup {
    /// The `[mqtt]` table for `broker`, with client id `device`, and more lines.
    mutating func useBroker(_ broker: MosquittoBroker, device: String, _ lines: [String] = []) {
        mqttLines = ["broker = \"\(broker.url)\"", "client_id = \"\(device)\""] + lines
    }
}
