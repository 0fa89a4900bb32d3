import Foundation
import ServiceLifecycle
import Testing
import WeatherCore

@testable import TestSupport
@testable import WeatherDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// `SystemdNotifier` and `SystemdService`: sd_notify(3) datagrams to `$NOTIFY_SOCKET`, received
/// here by a socket the test binds.
@Suite struct SystemdNotifierTests {
    /// An abstract socket name no other test (or process) uses.
    private static func uniqueAbstractName() -> String {
        "weatherd-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    @Test func notifySendsTheFieldsAsOneDatagramToASocketPath() async throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(path: directory.file("notify"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address])

        #expect(notifier.notify(["READY=1", "STATUS=serving on /run/weatherd.sock"]))

        let message = try await socket.waitFor("READY=1")
        #expect(message.fields == ["READY=1", "STATUS=serving on /run/weatherd.sock"])
        #expect(socket.received.count == 1)
    }

    @Test func notifyReachesAnAbstractSocket() async throws {
        let socket = try NotifySocket(abstractName: Self.uniqueAbstractName())
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address])
        #expect(socket.address.hasPrefix("@"))

        #expect(notifier.notify(["STATUS=starting"]))

        let message = try await socket.waitFor("STATUS=starting")
        #expect(message.value(of: "STATUS") == "starting")
    }

    @Test func datagramsComeFromThisProcess() async throws {
        let socket = try NotifySocket(abstractName: Self.uniqueAbstractName())
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address])

        notifier.notify(["READY=1"])

        // systemd checks the sender against NotifyAccess=main.
        #expect(try await socket.waitFor("READY=1").senderPID == getpid())
    }

    @Test func datagramsArriveInTheOrderSent() async throws {
        let socket = try NotifySocket(abstractName: Self.uniqueAbstractName())
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address])

        notifier.notify(["STATUS=starting"])
        notifier.notify(["READY=1", "STATUS=serving"])
        notifier.notify(["STOPPING=1"])

        try await socket.waitFor("STOPPING=1")
        #expect(socket.received.map(\.fields) == [["STATUS=starting"], ["READY=1", "STATUS=serving"], ["STOPPING=1"]])
    }

    @Test(arguments: [[:], ["NOTIFY_SOCKET": ""]])
    func withoutNotifySocketNothingIsSent(environment: [String: String]) {
        let notifier = SystemdNotifier(environment: environment)

        #expect(!notifier.isActive)
        #expect(notifier.socketPath == nil)
        #expect(notifier.notify(["READY=1"]) == false)
    }

    @Test func aNotifySocketThatIsNotThereIsReportedNotThrown() throws {
        let directory = try TemporaryDirectory()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": directory.file("gone")])

        #expect(notifier.isActive)
        #expect(notifier.notify(["READY=1"]) == false)
    }

    @Test func aNotifySocketPathTooLongForSockaddrIsReportedNotThrown() {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/tmp/" + String(repeating: "x", count: 200)])

        #expect(notifier.notify(["READY=1"]) == false)
    }

    // MARK: Watchdog interval

    @Test func watchdogIntervalIsWatchdogUsec() {
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"]) == .seconds(30))
    }

    @Test func watchdogIntervalForThisProcessCounts() {
        let environment = ["WATCHDOG_USEC": "1500000", "WATCHDOG_PID": String(getpid())]
        #expect(SystemdNotifier.watchdogInterval(environment: environment) == .milliseconds(1500))
    }

    @Test func watchdogIntervalForAnotherProcessIsIgnored() {
        let environment = ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": String(getpid() + 1)]
        #expect(SystemdNotifier.watchdogInterval(environment: environment) == nil)
    }

    @Test(arguments: [[:], ["WATCHDOG_USEC": "0"], ["WATCHDOG_USEC": "-5"], ["WATCHDOG_USEC": "30s"], ["WATCHDOG_USEC": ""]])
    func noUsableWatchdogUsecMeansNoWatchdog(environment: [String: String]) {
        #expect(SystemdNotifier.watchdogInterval(environment: environment) == nil)
    }

    // MARK: SystemdService

    /// Runs a `SystemdService` in a `ServiceGroup`, runs `body`, then shuts the group down
    /// gracefully and waits for it to end.
    private func withService(
        notifier: SystemdNotifier, watchdog: Duration?, clock: ManualClock = ManualClock(),
        _ body: @Sendable () async throws -> Void
    ) async throws {
        let service = SystemdService(notifier: notifier, watchdog: watchdog, clock: DaemonClock(clock), logger: silentLogger)
        try await withRunning(service, body)
    }

    @Test func theServicePingsTheWatchdogAtOnceAndThenAtHalfTheInterval() async throws {
        let socket = try NotifySocket(abstractName: Self.uniqueAbstractName())
        let clock = ManualClock()
        try await withService(
            notifier: SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address]), watchdog: .seconds(10), clock: clock
        ) {
            try await socket.waitFor(1, "WATCHDOG=1")
            await clock.waitForSleepers(1)
            #expect(clock.sleepingUntil == [.seconds(5)])

            clock.advance(by: .seconds(5))
            try await socket.waitFor(2, "WATCHDOG=1")
            await clock.waitForSleepers(1)
            #expect(clock.sleepingUntil == [.seconds(5)])
        }
    }

    @Test func theServiceSaysStoppingAtGracefulShutdown() async throws {
        let socket = try NotifySocket(abstractName: Self.uniqueAbstractName())
        try await withService(notifier: SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address]), watchdog: nil) {}

        let stopping = try await socket.waitFor("STOPPING=1")
        #expect(stopping.fields == ["STOPPING=1", "STATUS=stopping"])
        #expect(!socket.received.contains { $0.has("WATCHDOG=1") }, "no watchdog was asked for: \(socket.received)")
    }

    @Test func theServiceWithAWatchdogSaysStoppingAtGracefulShutdown() async throws {
        let socket = try NotifySocket(abstractName: Self.uniqueAbstractName())
        let clock = ManualClock()
        try await withService(
            notifier: SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address]), watchdog: .seconds(10), clock: clock
        ) {
            await clock.waitForSleepers(1)
        }

        let stopping = try await socket.waitFor("STOPPING=1")
        #expect(stopping.fields == ["STOPPING=1", "STATUS=stopping"])
    }
}

/// `ListenFDs`: the sockets systemd's socket activation passes (sd_listen_fds(3)).
@Suite struct ListenFDsTests {
    @Test func socketsPassedToThisProcessStartAtDescriptorThree() {
        let fds = ListenFDs.take(environment: ["LISTEN_PID": String(getpid()), "LISTEN_FDS": "2"])

        #expect(fds == [3, 4])
    }

    @Test func socketsPassedToAnotherProcessAreNotTaken() {
        #expect(ListenFDs.take(environment: ["LISTEN_PID": String(getpid() + 1), "LISTEN_FDS": "1"]).isEmpty)
    }

    @Test(arguments: [
        [:],
        ["LISTEN_FDS": "1"],
        ["LISTEN_PID": "self"],
        ["LISTEN_PID": "self", "LISTEN_FDS": "0"],
        ["LISTEN_PID": "self", "LISTEN_FDS": "-1"],
        ["LISTEN_PID": "self", "LISTEN_FDS": "one"],
    ])
    func withoutAUsableCountNothingIsTaken(environment: [String: String]) {
        let environment = environment.mapValues { $0 == "self" ? String(getpid()) : $0 }

        #expect(ListenFDs.take(environment: environment).isEmpty)
    }
}
