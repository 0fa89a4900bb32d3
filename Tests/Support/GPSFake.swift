import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The NMEA logs gpsfake replays.
enum NMEALog {
    /// The recorded receiver logs (gpsd's regression logs) in `Tests/Fixtures/nmea/` inside the repository.
    static func shared(_ name: String) -> String {
        URL(fileURLWithPath: TestEnvironment.packageRoot).appendingPathComponent("Tests/Fixtures/nmea/\(name)")
            .standardizedFileURL.path
    }

    /// A steady good fix near -37.7848, 175.3149 (Hamilton, NZ); eph ≈ 21 m.
    static var bu353s4: String { shared("bu353s4.log") }
    /// A receiver that never gets a fix.
    static var tn200: String { shared("tn200.log") }
    /// A fix near 53.9196, 27.5008 (Minsk) with poor accuracy: eph ≈ 329 m.
    static var venus634lp: String { shared("venus634lp.log") }
    /// Ours: a 3D fix moving north from -37.79, 175.30 by 0.005° (≈ 556 m) per sentence group.
    static var movingNorth: String { TestEnvironment.packageRoot + "/Tests/Fixtures/nmea/moving-north.log" }
    /// Ours: a 3D fix staying near -37.7848, 175.3149, fix k 0.0001′ of longitude (≈ 0.15 m) east of
    /// fix k-1 (``stayingFixNumber(longitude:)``), 600 fixes (88 m).
    static var staying: String { TestEnvironment.packageRoot + "/Tests/Fixtures/nmea/staying.log" }

    /// The number of a fix of ``staying`` from its longitude.
    static func stayingFixNumber(longitude: Double) -> Int {
        Int(((longitude - (175 + 18.894 / 60)) * 60 / 0.0001).rounded())
    }
}

/// A real gpsd fed by `gpsfake` from an NMEA log, listening on 127.0.0.1:`port`.
///
/// gpsfake runs in a session (and process group) of its own through `setsid -w`, and is ended by
/// killing that whole group with SIGKILL (gpsfake can hang on SIGTERM, and its gpsd is in the same
/// group). `stop()` does that and waits until the group is gone; the object also kills the group
/// when it goes away, so no gpsd outlives a test, even a failing one. Keep the object alive until
/// the end of the test (`defer { fake.kill() }` does).
final class GPSFake: Sendable {
    let port: Int
    let log: String
    /// The `setsid -w` process (its output is gpsfake's and gpsd's).
    let process: ChildProcess
    /// The process group (= session) of gpsfake and its gpsd: the pid of setsid's child.
    let group: pid_t
    private let ended = Atomic<Bool>(false)

    /// Starts gpsfake on `port` (default: a free one) replaying `log` (looping unless `once`), one
    /// sentence every `cycle` seconds, and waits until gpsd accepts TCP connections (or gpsfake
    /// ends). Starting takes no set time: without a `timeout` it waits for that alone, and the
    /// test's time limit ends a hang.
    static func start(
        _ log: String, port: Int? = nil, once: Bool = false, cycle: Double = 0.1, timeout: Duration? = nil
    ) async throws -> GPSFake {
        guard FileManager.default.isReadableFile(atPath: log) else {
            throw ChildProcessError(message: "no NMEA log \(log)")
        }
        // A port picked by us can be taken by someone else before gpsd binds it: try another one.
        var attempt = 0
        while true {
            attempt += 1
            let chosen = try port ?? freeTCPPort()
            do {
                return try await launch(log, port: chosen, once: once, cycle: cycle, timeout: timeout)
            } catch is GPSFakeEndedEarly where port == nil && attempt < 3 {
                continue
            } catch let lost as GPSFakeLostDevice where attempt < 3 {
                FileHandle.standardError.write(Data("\(lost); starting gpsfake anew\n".utf8))
                continue  // stopped, so its port is free again
            }
        }
    }

    private static func launch(_ log: String, port: Int, once: Bool, cycle: Double, timeout: Duration?) async throws -> GPSFake {
        var arguments = ["-w", "gpsfake", "-q", "-n"]
        if once { arguments.append("-1") }
        arguments += ["-c", "\(cycle)", "-P", "\(port)", log]
        let process = try await ChildProcess(
            "/usr/bin/setsid", arguments, environment: TestEnvironment.childEnvironment(), name: "gpsfake:\(port)")
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        // setsid is a process group leader (Foundation starts children in a group of their own), so
        // it forks: the child calls setsid() and execs gpsfake. Find that child once it leads its group.
        var group: pid_t?
        while group == nil {
            group = sessionChild(of: process.pid)
            if group != nil { break }
            if !process.isRunning {
                _ = try? await process.waitForExitAndOutput(timeout: .seconds(2))
                throw GPSFakeEndedEarly(
                    message:
                        "setsid gpsfake on port \(port) ended at once (\(process.termination.value.map { "\($0)" } ?? "?")):\n\(process.stdoutText)\(process.stderrText)"
                )
            }
            if let deadline, let timeout, ContinuousClock.now >= deadline {
                process.send(SIGKILL)
                throw TimeoutError(what: "setsid to start gpsfake in a session of its own", timeout: timeout)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let fake = GPSFake(port: port, log: log, process: process, group: group!)
        // gpsfake adds its device right after gpsd is up: a gpsd still without one this long after its
        // first answer never gets it.
        var deviceDeadline: ContinuousClock.Instant?
        do {
            while true {
                switch await probeGPSD(port: port) {
                case .gpsd(let devices) where devices > 0:
                    break
                case .gpsd:
                    // gpsd runs but has no device yet: gpsfake adds its pty through gpsd's control socket
                    // once that socket file exists. The file exists from bind(), before listen(): a connect
                    // in between is refused and gpsfake (gps/fake.py, add_device) then silently never adds
                    // the device. Such a gpsd would answer every client and never send a fix: start anew.
                    let now = ContinuousClock.now
                    if deviceDeadline == nil { deviceDeadline = now.advanced(by: .seconds(5)) }
                    guard now < deviceDeadline! else {
                        throw GPSFakeLostDevice(
                            message: "gpsd on 127.0.0.1:\(port) never got gpsfake's device (gpsfake's control-socket race)")
                    }
                    try await Task.sleep(for: .milliseconds(50))
                    continue
                case .other:
                    // Another server took the port between our pick and gpsd's bind (gpsd may still
                    // have bound [::1] alone): a daemon pointed there would talk to that server.
                    throw GPSFakeEndedEarly(message: "127.0.0.1:\(port) is answered by something that is not gpsd")
                case .refused:
                    if !process.isRunning {
                        fake.kill()
                        _ = try? await process.waitForExitAndOutput(timeout: .seconds(2))
                        throw GPSFakeEndedEarly(
                            message:
                                "gpsfake on port \(port) ended before gpsd answered (\(process.termination.value.map { "\($0)" } ?? "?")):\n\(process.stdoutText)\(process.stderrText)"
                        )
                    }
                    if let deadline, let timeout, ContinuousClock.now >= deadline {
                        throw TimeoutError(
                            what:
                                "gpsd (gpsfake \(log)) to accept connections on 127.0.0.1:\(port); it printed:\n\(process.stdoutText)\(process.stderrText)",
                            timeout: timeout)
                    }
                    try await Task.sleep(for: .milliseconds(50))
                    continue
                }
                break
            }
        } catch {
            await fake.stopQuietly()
            throw error
        }
        return fake
    }

    private init(port: Int, log: String, process: ChildProcess, group: pid_t) {
        self.port = port
        self.log = log
        self.process = process
        self.group = group
    }

    deinit {
        kill()
    }

    /// Kills gpsfake's process group (gpsfake, its gpsd) and setsid with SIGKILL, without waiting.
    /// Only the first call sends signals (afterwards the ids may belong to other processes).
    func kill() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = Glibc.kill(-group, SIGKILL)
        process.send(SIGKILL)
    }

    /// Kills the group and waits until setsid was reaped and no process of the group runs any more
    /// (gpsd's port is free again then).
    func stop(timeout: Duration = safetyDeadline) async throws {
        kill()
        try await process.waitForExitAndOutput(timeout: timeout)
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while let member = livingMember(ofGroup: group) {
            guard ContinuousClock.now < deadline else {
                throw TimeoutError(what: "process \(member) of gpsfake's group \(group) to end", timeout: timeout)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func stopQuietly() async {
        do { try await stop() } catch { kill() }
    }
}

private struct GPSFakeEndedEarly: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

private struct GPSFakeLostDevice: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A TCP port on 127.0.0.1 that is free now, for a server a test starts on it (at once or later:
/// until then, connecting to it is refused). It is taken below the kernel's ephemeral range
/// (`net.ipv4.ip_local_port_range`), where no server of another test bound to port 0 can land on it
/// meanwhile; it was bound and closed again here.
func freeTCPPort() throws -> Int {
    let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
        .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    let ephemeralStart = range?.first ?? 32768
    for port in (max(1024, ephemeralStart - 12_000)..<ephemeralStart).shuffled().prefix(200) where canBind(port) {
        return port
    }
    throw ChildProcessError(message: "no free port on 127.0.0.1 below the ephemeral range (\(ephemeralStart))")
}

/// Whether 127.0.0.1:`port` can be bound now (closed again at once).
private func canBind(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

/// What answers on 127.0.0.1:`port`.
enum PortProbe {
    case refused
    /// gpsd: its `VERSION` banner came at once, and its answer to `?DEVICES;` listed this many devices.
    case gpsd(devices: Int)
    /// Something else accepted the connection.
    case other
}

/// Connects to 127.0.0.1:`port`, reads what comes in the first two seconds (gpsd greets every client
/// with `{"class":"VERSION",…}`) and, from gpsd, how many devices it reads (`?DEVICES;`). Blocking
/// calls run on a thread of their own.
func probeGPSD(port: Int) async -> PortProbe {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: blockingProbeGPSD(port: port)) }
    }
}

private func blockingProbeGPSD(port: Int) -> PortProbe {
    guard let fd = try? connectedSocket(loopbackPort: port) else { return .refused }
    defer { close(fd) }
    var received: [UInt8] = []
    var greeted = false
    let deadline = ContinuousClock.now.advanced(by: .seconds(2))
    while ContinuousClock.now < deadline {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 100) > 0 else { continue }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { break }
        received += chunk[..<n]
        // One JSON object per line.
        while let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(received[..<newline])
            received.removeSubrange(...newline)
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            switch object["class"] as? String {
            case "VERSION" where !greeted:
                greeted = true
                let query = Array("?DEVICES;\n".utf8)
                guard send(fd, query, query.count, Int32(MSG_NOSIGNAL)) == query.count else { return .gpsd(devices: 0) }
            case "DEVICES" where greeted:
                return .gpsd(devices: (object["devices"] as? [Any])?.count ?? 0)
            default:
                continue
            }
        }
    }
    return greeted ? .gpsd(devices: 0) : .other
}

private func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}

/// `/proc/PID/stat`: (state, ppid, pgrp), or nil when the process is gone.
private func processStat(_ pid: pid_t) -> (state: Character, ppid: pid_t, pgrp: pid_t)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return nil }
    // After "pid (comm) ": state ppid pgrp ...
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count >= 3, let state = fields[0].first, let ppid = pid_t(fields[1]), let pgrp = pid_t(fields[2]) else { return nil }
    return (state, ppid, pgrp)
}

private func allPIDs() -> [pid_t] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
}

/// The child of `parent` that leads a process group of its own (setsid's child after setsid()); or
/// `parent` itself when setsid did not need to fork and already runs gpsfake.
private func sessionChild(of parent: pid_t) -> pid_t? {
    if let stat = processStat(parent), stat.pgrp == parent,
        let name = try? String(contentsOfFile: "/proc/\(parent)/comm", encoding: .utf8),
        name.trimmingCharacters(in: .whitespacesAndNewlines) == "gpsfake"
    {
        return parent
    }
    return allPIDs().first { pid in
        guard let stat = processStat(pid) else { return false }
        return stat.ppid == parent && stat.pgrp == pid
    }
}

/// A process of group `group` that is not a zombie, if any.
private func livingMember(ofGroup group: pid_t) -> pid_t? {
    allPIDs().first { pid in
        guard let stat = processStat(pid) else { return false }
        return stat.pgrp == group && stat.state != "Z" && stat.state != "X"
    }
}
