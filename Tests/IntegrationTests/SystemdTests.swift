import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// weatherd as a systemd service: the notify protocol, socket activation, SIGHUP reloads, journald
/// log lines and the unit files / install script. Everything runs without systemd as PID 1: a
/// test-owned NOTIFY_SOCKET, `systemd-socket-activate`, `systemd-analyze`.
///
/// Without socket activation the daemon removes its socket file at exit: LifecycleTests.sigterm.
@Suite("systemd")
struct SystemdTests {
    // MARK: - sd_notify

    enum NotifyAddress: String, CaseIterable, Sendable {
        case path, abstract
    }

    @Test(
        "sd_notify: STATUS=starting, READY=1 only once the socket accepts connections, STOPPING=1 at SIGTERM",
        arguments: NotifyAddress.allCases)
    func notifyProtocol(address: NotifyAddress) async throws {
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: nil)
        let socketPath = setup.socketPath
        // The daemon's stderr goes to a file (not a pipe read by another thread), so what it logged
        // before sending READY=1 is in the file when READY=1 arrives.
        let logPath = directory.file("weatherd.log")
        // At the moment READY=1 arrives (before the test goes on), the socket must accept a
        // connection and `listening on` must be logged already.
        let probe: @Sendable (NotifyMessage) -> String? = { message in
            guard message.has("READY=1") else { return nil }
            var findings: [String] = []
            do {
                _ = try RawSocket(path: socketPath)
                findings.append("connected")
            } catch {
                findings.append("\(error)")
            }
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            findings.append(log.contains("weatherd: listening on \(socketPath)") ? "listening logged" : "not logged yet: \(log)")
            return findings.joined(separator: "; ")
        }
        let notify =
            switch address {
            case .path: try NotifySocket(path: directory.file("notify.sock"), probe: probe)
            case .abstract: try NotifySocket(abstractName: "weatherd-test-\(UUID().uuidString)", probe: probe)
            }

        let daemon = try await DaemonProcess.start(
            setup, environment: ["NOTIFY_SOCKET": notify.address],
            through: { weatherd, arguments in ["/bin/sh", "-c", "exec \"$0\" \"$@\" 2>\(logPath)", weatherd] + arguments },
            awaiting: nil)
        defer { daemon.process.killProcessGroup() }

        let ready = try await notify.waitFor("READY=1")
        #expect(ready.probe == "connected; listening logged", "at READY=1: \(ready)")
        #expect(ready.value(of: "STATUS") == "serving on \(socketPath)", "READY=1 carries the status: \(ready)")
        let received = notify.received
        let starting = received.firstIndex { $0.value(of: "STATUS") == "starting" }
        let readyIndex = received.firstIndex { $0.has("READY=1") }
        #expect(starting != nil && starting! < readyIndex!, "STATUS=starting comes before READY=1: \(received)")
        #expect(received.filter { $0.has("READY=1") }.count == 1, "READY=1 once: \(received)")
        #expect(try await daemon.call("version")["protocol"]?.intValue == 1)

        let (status, _) = try await daemon.terminate()
        #expect(status == 0, "\((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
        let stopping = try await notify.waitFor("STOPPING=1")
        #expect(stopping.value(of: "STATUS") == "stopping", "\(stopping)")
        let all = notify.received
        #expect(all.last?.has("STOPPING=1") == true, "STOPPING=1 is the last message: \(all)")
        #expect(!all.contains { $0.has("WATCHDOG=1") }, "no watchdog pings without WATCHDOG_USEC: \(all)")
        // systemd (NotifyAccess=main) accepts messages from the main pid only: the exec'd daemon's.
        #expect(all.allSatisfy { $0.senderPID == daemon.pid }, "senders: \(all.map { $0.senderPID as Any }), daemon pid \(daemon.pid)")
    }

    enum WatchdogPID: String, CaseIterable, Sendable {
        /// `WATCHDOG_PID` unset.
        case unset
        /// `WATCHDOG_PID` = the daemon's own pid (a shell exports `$$`, then execs weatherd).
        case own
    }

    @Test("sd_notify: WATCHDOG_USEC=200000 → WATCHDOG=1 every 100 ms", arguments: WatchdogPID.allCases)
    func watchdog(pid: WatchdogPID) async throws {
        let directory = try TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify.sock"))
        let setup = DaemonSetup(directory: directory, replay: nil)
        let environment = ["NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": "200000"]
        let daemon = try await DaemonProcess.start(
            setup, environment: environment,
            through: { weatherd, arguments in
                switch pid {
                case .unset: [weatherd] + arguments
                case .own: ["/bin/sh", "-c", "export WATCHDOG_PID=$$; exec \"$0\" \"$@\"", weatherd] + arguments
                }
            },
            awaiting: "weatherd: listening on \(setup.socketPath)")
        defer { daemon.process.killProcessGroup() }

        let pings = try await notify.waitFor(3, "WATCHDOG=1")
        // Half the interval between pings: never sooner (sleeps are not shorter than asked).
        let span = pings[2].receivedAt.timeIntervalSince(pings[0].receivedAt)
        #expect(span >= 0.19, "three pings within \(span) s: more often than every 100 ms")
        #expect(pings.allSatisfy { $0.senderPID == daemon.pid })

        let (status, _) = try await daemon.terminate()
        #expect(status == 0, "\(daemon.stderrText)")
        try await notify.waitFor("STOPPING=1")
    }

    @Test("sd_notify: with WATCHDOG_PID naming another process no WATCHDOG=1 is sent")
    func watchdogForAnotherProcess() async throws {
        let directory = try TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify.sock"))
        let environment = ["NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": String(getpid())]
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: nil), environment: environment)
        try await notify.waitFor("READY=1")
        #expect(try await daemon.call("version")["protocol"]?.intValue == 1)
        let (status, _) = try await daemon.terminate()
        #expect(status == 0, "\(daemon.stderrText)")
        try await notify.waitFor("STOPPING=1")
        // With a watchdog the service pings first thing and sends STOPPING=1 after its last ping,
        // so one WATCHDOG=1 would be in the list before STOPPING=1: no observation window needed.
        #expect(!notify.received.contains { $0.has("WATCHDOG=1") }, "\(notify.received)")
        try await daemon.process.waitForExitAndOutput()
        #expect(!daemon.stderrText.contains("watchdog"), "\(daemon.stderrText)")
    }

    // MARK: - Socket activation

    @Test("socket activation: serves on fd 3 from systemd-socket-activate and leaves the socket file alone")
    func socketActivation() async throws {
        let activate = try requiredTool("systemd-socket-activate")
        let directory = try TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify.sock"))
        let setup = DaemonSetup(directory: directory, replay: nil)
        let activationPath = directory.file("act.sock")
        // systemd-socket-activate listens, and on the first connection execs weatherd in place
        // (the same pid) with LISTEN_FDS=1, LISTEN_PID=its pid and the socket as fd 3. It passes
        // on only PATH and TERM of its environment, and what -E names.
        //
        // It is started by a shell that waits for it, not directly: before the exec it closes every
        // descriptor but the socket, among them the one Foundation's Process watches to notice the
        // end of a child (a socketpair end the child inherits). Foundation then calls a blocking
        // waitpid() on the thread that reaps every child of the test process, and no other
        // child's exit would be noticed until weatherd ends. The shell keeps that descriptor open.
        // `env --default-signal` clears the signal mask children of the test process inherit (its
        // threads block SIGCHLD and SIGTERM, among others): with SIGCHLD blocked, dash's `wait`
        // never returns. (systemd, too, starts services with no signal blocked.)
        let daemon = try await DaemonProcess.start(
            setup, extraArguments: ["--socket", activationPath],
            through: { weatherd, arguments in
                [
                    "/usr/bin/env", "--default-signal", "/bin/sh", "-c", "\"$0\" \"$@\" & echo \"activator pid $!\"; wait $!",
                    activate, "-l", activationPath, "-E", "NOTIFY_SOCKET=\(notify.address)", weatherd,
                ] + arguments
            },
            awaiting: "Listening on \(activationPath)")
        defer { daemon.process.killProcessGroup() }  // the shell, and the activator or weatherd
        let pidLine = try await daemon.process.waitForLine(containing: "activator pid ", on: \.stdout)
        let activatorPID = try #require(Int32(pidLine.dropFirst("activator pid ".count)), "\(pidLine)")
        let modeBefore = try fileMode(activationPath)

        // The first connection starts the daemon, which answers on it.
        let version = try await DaemonConnection.with(socketPath: activationPath) { try await $0.call("version") }
        #expect(version["protocol"]?.intValue == 1, "\(version.serialized)")
        _ = try await daemon.process.waitForLine(containing: "weatherd: listening on fd 3", on: \.stderr)
        let ready = try await notify.waitFor("READY=1")
        #expect(ready.value(of: "STATUS") == "serving on \(activationPath)", "\(ready)")
        #expect(ready.senderPID == activatorPID, "systemd-socket-activate execs weatherd in place: \(ready)")
        let cities = try await runWeatherctl(["--socket", activationPath, "cities"])
        #expect(cities.status == 0, "a second client on the same socket: \(cities)")

        #expect(try fileMode(activationPath) == modeBefore, "the daemon changed the mode of a socket it does not own")
        #expect(!FileManager.default.fileExists(atPath: setup.socketPath), "socket.path is not bound under socket activation")

        // SIGTERM to weatherd (the activator's pid); the shell exits with its status.
        kill(activatorPID, SIGTERM)
        let ended = try await daemon.process.waitForExitAndOutput()
        #expect(ended.exitedNormally && ended.status == 0, "weatherd: \(ended)\n\(daemon.stderrText)")
        #expect(FileManager.default.fileExists(atPath: activationPath), "systemd's socket file was removed")
        try await notify.waitFor("STOPPING=1")
        #expect(daemon.stderrText.contains("weatherd stopped"), "\(daemon.stderrText)")
    }

    // MARK: - SIGHUP

    @Test("SIGHUP: new cities apply (stored changes kept) and reach a connected watcher")
    func reloadCities() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify.sock"))
        let setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        let daemon = try await DaemonProcess.start(setup, environment: ["NOTIFY_SOCKET": notify.address])
        try await notify.waitFor("READY=1")
        #expect(try await daemon.call("cities.add", ["city": "Paris"])["cities"] == JSONValue.array(["London", "Paris"]))
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the overlays with London and Paris") {
            $0.isOverlaysNotification && Set($0.params?.featureIDs ?? []) == [Fixtures.londonID, Ids.paris]
        }

        var reloaded = setup
        reloaded.cities = ["Tokyo"]
        try reloaded.writeConfig()
        daemon.process.send(SIGHUP)
        _ = try await waitForLines(daemon, containing: "configuration reloaded; changed: cities")
        #expect(try await daemon.call("cities")["cities"] == JSONValue.array(["Tokyo", "Paris"]), "config cities, then the stored changes")

        // The same connection, still open, gets the new overlays.
        let (overlays, _) = try await watcher.next("the overlays of the reloaded cities") {
            $0.isOverlaysNotification && Set($0.params?.featureIDs ?? []) == [Ids.tokyo, Ids.paris]
        }
        #expect(overlays.params?["focus"] == .null, "a city refresh does not move the map")
        #expect(!watcher.inbox.value.ended)
        let current = try await daemon.call("overlays")
        #expect(Set(current.featureIDs) == [Ids.paris, Ids.tokyo], "\(current.serialized)")

        // sd_notify: reloading, then serving again.
        let servingAgain = "serving on \(daemon.socketPath)"
        _ = try await notify.messages.wait(for: "STATUS=reloading… then STATUS=\(servingAgain): \(notify.received)") { messages -> Bool? in
            let statuses = messages.compactMap { $0.value(of: "STATUS") }
            guard let reloading = statuses.firstIndex(where: { $0.hasPrefix("reloading") }) else { return nil }
            return statuses[(reloading + 1)...].contains(servingAgain) ? true : nil
        }
        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
    }

    @Test("a reload is framed by RELOADING=1 with MONOTONIC_USEC and READY=1, for SIGHUP and for a failed reload alike")
    func reloadingReady() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify.sock"))
        let setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        let daemon = try await DaemonProcess.start(setup, environment: ["NOTIFY_SOCKET": notify.address])
        try await notify.waitFor("READY=1")
        var reloaded = setup
        reloaded.cities = ["Paris"]
        try reloaded.writeConfig()
        daemon.process.send(SIGHUP)
        let reloading = try await notify.waitFor("RELOADING=1")
        let monotonic = try #require(reloading.value(of: "MONOTONIC_USEC").flatMap(UInt64.init), "\(reloading)")
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        #expect(
            monotonic <= nowMicroseconds && nowMicroseconds - monotonic < 60_000_000,
            "MONOTONIC_USEC \(monotonic) is CLOCK_MONOTONIC (now \(nowMicroseconds))")
        let ready = try await notify.waitFor(2, "READY=1")
        #expect(ready[1].value(of: "STATUS") == "serving on \(daemon.socketPath)", "\(ready)")
        #expect(try await daemon.call("cities")["cities"] == JSONValue.array(["Paris"]))
        // A broken file: reloading, then ready again with the old configuration.
        _ = try directory.write("weatherd.toml", "cities = [")
        daemon.process.send(SIGHUP)
        _ = try await notify.waitFor(2, "RELOADING=1")
        let readyAgain = try await notify.waitFor(3, "READY=1")
        #expect(readyAgain[2].value(of: "STATUS")?.contains("the last reload failed") == true, "\(readyAgain)")
        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
    }

    @Test("weatherctl reload returns once the new configuration is in force, and fails (exit 1) on a broken file")
    func synchronousReload() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        let daemon = try await DaemonProcess.start(setup)
        for (round, cities) in [["Paris"], ["Tokyo", "Berlin"], ["London"]].enumerated() {
            var reloaded = setup
            reloaded.cities = cities
            try reloaded.writeConfig()
            let result = try await daemon.weatherctl(["reload"])
            #expect(result.status == 0, "round \(round): \(result)")
            #expect(result.stdout == "reloaded: cities changed\n", "\(result)")
            // No waiting: the reply came after the reload.
            #expect(try await daemon.call("cities")["cities"] == JSONValue.array(cities.map(JSONValue.string)))
        }
        var moved = setup
        moved.regionLines = [#"debounce = "1s""#]
        try moved.writeConfig()
        let restart = try await daemon.weatherctl(["reload", "--json"])
        #expect(try JSONValue.parse(Array(restart.stdout.utf8))["restart_needed"] == .array(["region.debounce"]), "\(restart)")
        _ = try directory.write("weatherd.toml", "cities = [\"Oslo\"]\nrefresh = 5\n")
        let broken = try await daemon.weatherctl(["reload"])
        #expect(broken.status == 1, "\(broken)")
        #expect(
            broken.stderr.contains("configuration error; the running configuration stays:") && broken.stderr.contains("refresh"),
            "\(broken)")
        #expect(try await daemon.call("cities")["cities"] == JSONValue.array(["London"]))
        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
    }

    @Test("SIGHUP: new units and language apply to the next lookup; answers cached in the old units are dropped")
    func reloadUnitsAndLanguage() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: replay)
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)

        let metric = try await daemon.call("search", ["city": "London"])
        #expect(metric["properties"]?["units"] == "metric")
        #expect(metric["properties"]?["temperature"]?.doubleValue == 8.94)
        #expect(try await replay.stats().weatherRequests == 1)

        var reloaded = setup
        reloaded.weatherLines = ["units = \"imperial\"", "lang = \"de\""]
        try reloaded.writeConfig()
        daemon.process.send(SIGHUP)
        _ = try await waitForLines(daemon, containing: "configuration reloaded; changed: weather")

        let imperial = try await daemon.call("search", ["city": "London"])
        #expect(imperial["properties"]?["units"] == "imperial", "\(imperial.serialized)")
        #expect(imperial["properties"]?["temperature"]?.doubleValue == 48.09, "8.94 °C in °F, from a new request")
        let stats = try await replay.stats()
        #expect(stats.weatherRequests == 2, "the cached metric answer was dropped: \(stats)")
        #expect(stats.placeRequests(for: "london") == 1, "the places of a name do not depend on units or language: \(stats)")
        _ = try await replay.process.waitForLine(containing: "units=imperial&lang=de", on: \.stderr)
        #expect(!watcher.inbox.value.ended, "the watcher stayed connected")

        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
    }

    @Test("SIGHUP: a broken file keeps the running configuration; a new socket.path needs a restart")
    func reloadProblems() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)

        // A syntax error.
        _ = try directory.write("weatherd.toml", setup.toml.replacingOccurrences(of: "[state]", with: "[state"))
        daemon.process.send(SIGHUP)
        _ = try await waitForLines(daemon, containing: "reload failed; keeping the running configuration")
        let syntaxProblem = try await waitForLines(daemon, containing: "reload: \(setup.configPath):")
        #expect(syntaxProblem.count == 1, "\(daemon.stderrText)")
        #expect(try await daemon.call("cities")["cities"] == JSONValue.array(["London"]))

        // An unknown key (and otherwise other cities, which must not apply either).
        var other = setup
        other.cities = ["Tokyo"]
        _ = try directory.write("weatherd.toml", other.toml + "\n[surprise]\nkey = 1\n")
        daemon.process.send(SIGHUP)
        _ = try await waitForLines(daemon, containing: "reload failed; keeping the running configuration", count: 2)
        // At the table's header: FILE:LINE:2: surprise: unknown key.
        let surprise = daemon.stderrText.split(separator: "\n").first { $0.contains(": surprise: unknown key") }
        #expect(surprise?.contains(#/reload: \S+:\d+:2: surprise: unknown key/#) == true, "\(daemon.stderrText)")
        #expect(surprise?.contains("reload: \(setup.configPath):") == true, "\(daemon.stderrText)")
        #expect(try await daemon.call("cities")["cities"] == JSONValue.array(["London"]))

        // A new socket.path: logged as needing a restart; the other changes apply.
        let newPath = directory.file("other.sock")
        _ = try directory.write(
            "weatherd.toml", other.toml.replacingOccurrences(of: "path = \"\(setup.socketPath)\"", with: "path = \"\(newPath)\""))
        daemon.process.send(SIGHUP)
        let restart = try await waitForLines(daemon, containing: "socket.path changed to \(newPath)")
        #expect(restart.first?.contains("after a restart") == true, "\(restart)")
        _ = try await waitForLines(daemon, containing: "configuration reloaded")
        #expect(try await daemon.call("cities")["cities"] == JSONValue.array(["Tokyo"]), "the old path still serves")
        #expect(!FileManager.default.fileExists(atPath: newPath))
        #expect(!watcher.inbox.value.ended, "the watcher stayed connected through three reloads")

        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
        #expect(!FileManager.default.fileExists(atPath: setup.socketPath), "the socket it serves is removed at exit")
    }

    // MARK: - Log lines

    @Test("JOURNAL_STREAM set: every line is <priority>…, without a timestamp or the name (journald adds both)")
    func journaldPrefixes() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        let daemon = try await DaemonProcess.start(
            setup, extraArguments: ["--log-level", "debug"], environment: ["JOURNAL_STREAM": "8:1234"])
        _ = try await daemon.weatherctl(["search", "Atlantis"])  // an error reply
        _ = try await daemon.weatherctl(["search", "Paris"])
        _ = try directory.write("weatherd.toml", "cities = [")  // a reload error: <3> lines
        daemon.process.send(SIGHUP)
        _ = try await waitForLines(daemon, containing: "reload failed")
        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
        try await daemon.process.waitForExitAndOutput()

        let lines = daemon.stderrText.split(separator: "\n").map(String.init)
        let prefix = #/^<[2-7]>/#
        let unprefixed = lines.filter { (try? prefix.prefixMatch(in: $0)) == nil }
        #expect(unprefixed.isEmpty, "lines without a priority prefix:\n\(unprefixed.joined(separator: "\n"))")
        #expect(!lines.contains { $0.dropFirst(3).hasPrefix("weatherd: ") }, "journald shows the name already: \(daemon.stderrText)")
        #expect(lines.contains("<5>listening on \(setup.socketPath)"), "\(daemon.stderrText)")
        #expect(lines.contains("<3>reload failed; keeping the running configuration"), "\(daemon.stderrText)")
        #expect(lines.contains { $0.hasPrefix("<7>") }, "debug lines at --log-level debug: \(daemon.stderrText)")
        #expect(!lines.contains { $0.contains(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/) }, "no timestamps (journald adds them)")
    }

    @Test("JOURNAL_STREAM set: a configuration error at start is logged at priority err (<3>), each line, exit 78; a fatal error too")
    func journaldStartupErrors() async throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write("bad.toml", "cities = [\"London\"]\nrefresh = 5\n[gpsd]\nport = \"x\"\n")
        let result = try await runWeatherd(["--config", config], environment: ["JOURNAL_STREAM": "8:1234", "OWM_API_KEY": "k"])
        #expect(result.status == 78, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count >= 2 && lines.allSatisfy { $0.hasPrefix("<3>") }, "\(result.stderr)")
        #expect(lines.contains { $0.hasPrefix("<3>\(config):2:1: refresh: ") }, "\(result.stderr)")
        #expect(lines.contains { $0.hasPrefix("<3>\(config):4:1: gpsd.port: ") }, "\(result.stderr)")
        // A fatal error after start-up (the socket's directory does not exist): <3>fatal: …
        var setup = DaemonSetup(directory: directory, replay: nil)
        setup.maxClients = nil
        try setup.writeConfig()
        let text = try String(contentsOfFile: setup.configPath, encoding: .utf8)
            .replacingOccurrences(of: setup.socketPath, with: directory.file("missing/weatherd.sock"))
        _ = try directory.write("weatherd.toml", text)
        let fatal = try await runWeatherd(["--config", setup.configPath], environment: ["JOURNAL_STREAM": "8:1234"])
        #expect(fatal.status == 1, "\(fatal)")
        #expect(fatal.stderr.split(separator: "\n").contains { $0.hasPrefix("<3>fatal: ") }, "\(fatal.stderr)")
    }

    @Test("without JOURNAL_STREAM (or with it empty) lines start with an RFC 3339 timestamp", arguments: [nil, ""] as [String?])
    func timestampedLines(journalStream: String?) async throws {
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: nil)
        let daemon = try await DaemonProcess.start(setup, environment: journalStream.map { ["JOURNAL_STREAM": $0] } ?? [:])
        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
        try await daemon.process.waitForExitAndOutput()

        let lines = daemon.stderrText.split(separator: "\n").map(String.init)
        let stamped = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z (trace|debug|info|notice|warning|error|critical) weatherd: /#
        let other = lines.filter { (try? stamped.prefixMatch(in: $0)) == nil }
        #expect(!lines.isEmpty && other.isEmpty, "lines without a timestamp:\n\(other.joined(separator: "\n"))")
        #expect(lines.contains { $0.hasSuffix(" notice weatherd: listening on \(setup.socketPath)") }, "\(daemon.stderrText)")
    }

    @Test("--log-level warning drops notice and info lines")
    func logLevelWarning() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify.sock"))
        let setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        // `listening on` is a notice, so readiness comes from READY=1.
        let daemon = try await DaemonProcess.start(
            setup, extraArguments: ["--log-level", "warning"], environment: ["JOURNAL_STREAM": "8:1234", "NOTIFY_SOCKET": notify.address],
            through: { [$0] + $1 }, awaiting: nil)
        defer { daemon.process.killProcessGroup() }
        try await notify.waitFor("READY=1")
        _ = try await daemon.weatherctl(["search", "Paris"])
        _ = try directory.write("weatherd.toml", "cities = [")
        daemon.process.send(SIGHUP)
        _ = try await waitForLines(daemon, containing: "reload failed")
        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
        try await daemon.process.waitForExitAndOutput()

        let lines = daemon.stderrText.split(separator: "\n").map(String.init)
        let below = lines.filter { (try? #/^<[234]>/#.prefixMatch(in: $0)) == nil }
        #expect(below.isEmpty, "lines below warning:\n\(below.joined(separator: "\n"))")
        #expect(lines.contains("<3>reload failed; keeping the running configuration"), "\(daemon.stderrText)")
    }

    // MARK: - Unit files and installation

    @Test("systemd-analyze security: weatherd.service exposure ≤ 1.5")
    func securityExposure() async throws {
        let analyze = try requiredTool("systemd-analyze")
        let unit = TestEnvironment.packageRoot + "/systemd/weatherd.service"
        let result = try await runCommand(
            analyze, ["security", "--offline=true", "--no-pager", unit], environment: TestEnvironment.childEnvironment())
        let output = result.stdout + result.stderr
        let match = output.firstMatch(of: /Overall exposure level for weatherd\.service: (\d+\.\d+)/)
        let score = match.flatMap { Double($0.1) }
        #expect(score != nil, "no exposure level in the output: \(result)")
        if let score { #expect(score <= 1.5, "exposure \(score) > 1.5:\n\(output)") }
    }

    @Test("systemd-analyze verify: the units have no problem")
    func verifyUnits() async throws {
        let analyze = try requiredTool("systemd-analyze")
        let directory = try TemporaryDirectory()
        // The unit names /usr/local/bin/weatherd, which is not installed here: verify copies that
        // name the built binary, with the socket unit beside them.
        let service = try String(contentsOfFile: TestEnvironment.packageRoot + "/systemd/weatherd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/usr/local/bin/weatherd "))
        let socket = try String(contentsOfFile: TestEnvironment.packageRoot + "/systemd/weatherd.socket", encoding: .utf8)
        let weatherd = try TestEnvironment.binary("weatherd")
        let weatherctl = try TestEnvironment.binary("weatherctl")
        let unitDirectory = directory.file("units")
        try FileManager.default.createDirectory(atPath: unitDirectory, withIntermediateDirectories: false)
        try service.replacingOccurrences(of: "/usr/local/bin/weatherd", with: weatherd).replacingOccurrences(
            of: "/usr/local/bin/weatherctl", with: weatherctl
        )
        .write(toFile: unitDirectory + "/weatherd.service", atomically: true, encoding: .utf8)
        try socket.write(toFile: unitDirectory + "/weatherd.socket", atomically: true, encoding: .utf8)

        let units = [unitDirectory + "/weatherd.service", unitDirectory + "/weatherd.socket"]
        let result = try await runCommand(analyze, ["verify", "--no-pager"] + units, environment: TestEnvironment.childEnvironment())
        #expect(result.status == 0, "\(result)")
        #expect(!(result.stdout + result.stderr).contains("weatherd"), "\(result)")

        // The check can fail: a unit naming a missing binary does.
        let broken = directory.file("broken")
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: false)
        try service.replacingOccurrences(of: "/usr/local/bin/weatherd", with: directory.file("missing/weatherd"))
            .replacingOccurrences(of: "/usr/local/bin/weatherctl", with: weatherctl)
            .write(toFile: broken + "/weatherd.service", atomically: true, encoding: .utf8)
        try socket.write(toFile: broken + "/weatherd.socket", atomically: true, encoding: .utf8)
        let failing = try await runCommand(
            analyze, ["verify", "--no-pager", broken + "/weatherd.service", broken + "/weatherd.socket"],
            environment: TestEnvironment.childEnvironment())
        #expect(failing.status != 0 && failing.stderr.contains("weatherd.service"), "\(failing)")
    }

    @Test("make install: binaries, units naming PREFIX, the config (kept when present), completions, the map page's files")
    func install() async throws {
        let root = TestEnvironment.packageRoot
        let destination = try TemporaryDirectory()
        let dest = destination.path
        // `make install` builds release binaries first, then runs scripts/install.sh with these
        // arguments; the test runs the script on the debug build (a release build takes minutes).
        let make = try requiredTool("make")
        let dryRun = try await runCommand(
            make, ["-n", "-C", root, "install", "DESTDIR=\(dest)", "PREFIX=/opt/wd"], environment: TestEnvironment.childEnvironment())
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect(
            dryRun.stdout.contains("scripts/install.sh \"$(swift build")
                && dryRun.stdout.contains("\"\(dest)\" \"/opt/wd\" \"/etc\" \"/opt/wd/lib/systemd/system\""), "\(dryRun)")

        let script = root + "/scripts/install.sh"
        let arguments = [TestEnvironment.binDirectory, dest, "/opt/wd", "/etc", "/opt/wd/lib/systemd/system"]
        let first = try await runCommand(script, arguments, environment: TestEnvironment.childEnvironment(), timeout: .seconds(60))
        #expect(first.status == 0, "\(first)")

        let files = FileManager.default
        for tool in ["weatherd", "weatherctl"] {
            #expect(files.isExecutableFile(atPath: "\(dest)/opt/wd/bin/\(tool)"), "bin/\(tool)")
            for completion in [
                "share/bash-completion/completions/\(tool)", "share/zsh/site-functions/_\(tool)",
                "share/fish/vendor_completions.d/\(tool).fish",
            ] {
                let text = (try? String(contentsOfFile: "\(dest)/opt/wd/\(completion)", encoding: .utf8)) ?? ""
                #expect(text.contains(tool), "\(completion): \(text.prefix(200))")
            }
        }
        // Every file the map page loads (its modules too), as in the repository.
        for name in try MapPageFiles.loaded() {
            let installed = files.contents(atPath: "\(dest)/opt/wd/share/weatherd/web/\(name)")
            #expect(installed != nil && installed == files.contents(atPath: MapPageFiles.directory + "/" + name), "web/\(name)")
        }
        let service = try String(contentsOfFile: "\(dest)/opt/wd/lib/systemd/system/weatherd.service", encoding: .utf8)
        #expect(
            service.split(separator: "\n").contains("ExecStart=/opt/wd/bin/weatherd --config /etc/weatherd/weatherd.toml"), "\(service)")
        let settings = service.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!settings.contains { $0.contains("/usr/local") }, "\(service)")
        #expect(files.fileExists(atPath: "\(dest)/opt/wd/lib/systemd/system/weatherd.socket"))
        let config = "\(dest)/etc/weatherd/weatherd.toml"
        #expect(
            try String(contentsOfFile: config, encoding: .utf8) == String(contentsOfFile: root + "/config/weatherd.toml", encoding: .utf8))
        let installed = try await runCommand(
            "\(dest)/opt/wd/bin/weatherd", ["--check-config", "--config", config],
            environment: TestEnvironment.childEnvironment(["OWM_API_KEY": "k"]))
        #expect(installed.status == 0, "the installed example config is valid: \(installed)")

        // An operator's edits survive a second install.
        let edited = try String(contentsOfFile: config, encoding: .utf8) + "\n# edited by the operator\n"
        try edited.write(toFile: config, atomically: true, encoding: .utf8)
        let second = try await runCommand(script, arguments, environment: TestEnvironment.childEnvironment(), timeout: .seconds(60))
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains("kept \(config)"), "\(second)")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == edited)
    }
}

/// Feature ids of the recorded cities (demo/owm).
private enum Ids {
    static let paris = "owm:2988507"
    static let tokyo = "owm:1850147"
}

/// Waits until weatherd printed at least `count` stderr lines containing `text`; returns them.
@discardableResult
private func waitForLines(
    _ daemon: DaemonProcess, containing text: String, count: Int = 1, timeout: Duration = safetyDeadline
) async throws -> [String] {
    let process = daemon.process
    return try await process.stderr.wait(
        for: "\(count) line(s) containing \"\(text)\"; stderr so far:\n\(process.stderrText)", timeout: timeout
    ) { captured in
        let lines = captured.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .filter { $0.contains(text) }.map(String.init)
        if lines.count >= count { return lines }
        if captured.closed { throw ChildProcessError(message: "weatherd ended before printing \(count) × \"\(text)\":\n\(captured.text)") }
        return nil
    }
}

/// The path of a command this suite needs (systemd-analyze, systemd-socket-activate, make): a
/// missing one fails the test, it does not skip it.
private func requiredTool(_ name: String) throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for directory in path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] {
        let candidate = directory + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw ChildProcessError(
        message: "\(name) is not installed, and this test needs it (it does not skip): install it (Debian: apt-get install systemd make)")
}

/// The permission bits of a file.
private func fileMode(_ path: String) throws -> mode_t {
    var info = stat()
    guard stat(path, &info) == 0 else { throw ChildProcessError(message: "stat \(path): \(String(cString: strerror(errno)))") }
    return info.st_mode & 0o7777
}
