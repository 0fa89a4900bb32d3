import Foundation
import ServiceLifecycle
import Synchronization
import Testing
import WeatherCore

@testable import TestSupport
@testable import WeatherDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// `GPSDReader`: libgps against a real gpsd (fed by gpsfake) or against nothing, reporting into a
/// real `LocationService` and engine. Serialized: each test may run a gpsd of its own.
@Suite(.serialized) struct GPSDReaderTests {
    private func reader(port: Int, enabled: Bool = true, core: CoreHarness, clock: DaemonClock = .continuous) -> GPSDReader {
        GPSDReader(
            endpoint: .init(enabled: enabled, host: "127.0.0.1", port: port), location: core.location, clock: clock, logger: silentLogger)
    }

    // MARK: With gpsd

    @Test func theReaderConnectsToGpsdAndTheFixesReachTheState() async throws {
        let gpsd = try await GPSFake.start(NMEALog.bu353s4)
        defer { gpsd.kill() }
        let core = try CoreHarness(gpsEnabled: true)

        try await withRunning(reader(port: gpsd.port, core: core)) {
            try await core.publisher.waitForState("gps.connected") { $0.gps.connected }
            let fixed = try await core.publisher.waitForState("gps.last_fix set", timeout: .seconds(20)) { $0.gps.lastFix != nil }

            let fix = try #require(fixed.gps.lastFix)
            #expect(fixed.gps.connected)
            #expect(abs(fix.coordinate.lat - -37.7848) < 0.01, "\(fix)")
            #expect(abs(fix.coordinate.lon - 175.3149) < 0.01, "\(fix)")
            #expect(fix.horizontalError > 0 && fix.horizontalError <= 100, "\(fix)")
            #expect(fix.mode >= 2)
        }
        try await gpsd.stop()
    }

    @Test func locateIsAnsweredWithTheWeatherAtGpsdsNextFix() async throws {
        let gpsd = try await GPSFake.start(NMEALog.bu353s4)
        defer { gpsd.kill() }
        let core = try CoreHarness(gpsEnabled: true)

        try await withRunning(reader(port: gpsd.port, core: core)) {
            let feature = try await core.location.locate(timeout: .seconds(20))

            #expect(feature.source == .location)
            #expect(abs(feature.coordinate.lat - -37.7848) < 0.01, "\(feature.coordinate)")
            #expect(abs(feature.coordinate.lon - 175.3149) < 0.01, "\(feature.coordinate)")
        }
        try await gpsd.stop()
    }

    @Test func whenGpsdGoesAwayTheReaderReportsNotConnected() async throws {
        let gpsd = try await GPSFake.start(NMEALog.bu353s4)
        defer { gpsd.kill() }
        let core = try CoreHarness(gpsEnabled: true)

        try await withRunning(reader(port: gpsd.port, core: core)) {
            try await core.publisher.waitForState("gps.connected") { $0.gps.connected }

            try await gpsd.stop()

            try await core.publisher.waitForStates("gps.connected false after it was true") { (states: [DaemonState]) -> Bool? in
                guard let up = states.firstIndex(where: { $0.gps.connected }) else { return nil }
                return states[up...].contains { !$0.gps.connected } ? true : nil
            }
            #expect(await core.location.gpsStatus.connected == false)
        }
    }

    // MARK: Without gpsd (on a manual clock: the backoff is checked, not waited for)

    @Test func withNothingOnThePortTheReaderStaysNotConnectedAndRetriesWithDoublingBackoff() async throws {
        let port = try freeTCPPort()
        let core = try CoreHarness(gpsEnabled: true)
        let clock = ManualClock()

        try await withRunning(reader(port: port, core: core, clock: DaemonClock(clock))) {
            var waits: [Duration] = []
            for _ in 0..<4 {
                await clock.waitForSleepers(1)
                waits += clock.sleepingUntil
                #expect(await core.location.gpsStatus.connected == false)
                clock.advance(by: clock.sleepingUntil.first ?? .zero)
            }
            #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
        }
        #expect(core.publisher.states.value.allSatisfy { !$0.gps.connected })
    }

    @Test func theBackoffStopsAtThirtySeconds() async throws {
        let port = try freeTCPPort()
        let core = try CoreHarness(gpsEnabled: true)
        let clock = ManualClock()

        try await withRunning(reader(port: port, core: core, clock: DaemonClock(clock))) {
            var waits: [Duration] = []
            for _ in 0..<7 {
                await clock.waitForSleepers(1)
                waits += clock.sleepingUntil
                clock.advance(by: clock.sleepingUntil.first ?? .zero)
            }
            // 1, 2, 4, 8, 16, then 30 rather than 32.
            #expect(waits.max() == .seconds(30), "\(waits)")
            #expect(waits.suffix(2) == [.seconds(30), .seconds(30)], "\(waits)")
        }
    }

    @Test func gpsdThatAppearsLaterIsConnectedAtTheNextRetry() async throws {
        let port = try freeTCPPort()
        let core = try CoreHarness(gpsEnabled: true)
        let clock = ManualClock()

        try await withRunning(reader(port: port, core: core, clock: DaemonClock(clock))) {
            await clock.waitForSleepers(1)  // the first try failed
            #expect(await core.location.gpsStatus.connected == false)

            let gpsd = try await GPSFake.start(NMEALog.bu353s4, port: port)
            defer { gpsd.kill() }
            clock.advance(by: clock.sleepingUntil.first ?? .zero)

            try await core.publisher.waitForState("gps.connected") { $0.gps.connected }
            try await gpsd.stop()
        }
    }

    @Test func aGpsdThatHangsUpAtOnceIsRetriedWithBackoff() async throws {
        // Accepts every connection and closes it at once, like a gpsd that cannot serve.
        let server = try HangUpServer()
        let core = try CoreHarness(gpsEnabled: true)
        let clock = ManualClock()

        try await withRunning(reader(port: server.port, core: core, clock: DaemonClock(clock))) {
            try await core.publisher.waitForStates("gps.connected, then not") { (states: [DaemonState]) -> Bool? in
                guard let up = states.firstIndex(where: { $0.gps.connected }) else { return nil }
                return states[up...].contains { !$0.gps.connected } ? true : nil
            }
            // The next try should wait on the clock, which does not move here: the reader sleeps on
            // it before it connects a second time.
            let backedOff = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await clock.waitForSleepers(1, timeout: safetyDeadline)
                    return true
                }
                group.addTask {
                    try await server.waitForHangUps(2)
                    return false
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
            let connections = server.hangUps
            #expect(backedOff, "the reader connected \(connections) times while the clock stood still")
            #expect(clock.sleepingUntil == [.seconds(1)])
        }
        await server.stop()
    }

    @Test func aDisabledReaderNeverConnectsAndWakesForNothing() async throws {
        // Something listens on the port: a connection attempt would be seen there.
        let listener = try TCPListener()
        let core = try CoreHarness(gpsEnabled: false)
        let clock = ManualClock()

        try await withRunning(reader(port: listener.port, enabled: false, core: core, clock: DaemonClock(clock))) {
            // Idle until a reload enables gpsd: no timer runs meanwhile.
            #expect(clock.sleepingUntil.isEmpty)
        }
        #expect(!listener.hasPendingConnection)
        #expect(core.publisher.states.value.allSatisfy { !$0.gps.connected })
    }

    // MARK: Reload

    @Test func aNewEndpointIsConnectedToAtOnceNotAfterTheBackoff() async throws {
        let deadPort = try freeTCPPort()
        let core = try CoreHarness(gpsEnabled: true)
        let clock = ManualClock()
        let gpsd = try await GPSFake.start(NMEALog.bu353s4)
        defer { gpsd.kill() }
        let reader = reader(port: deadPort, core: core, clock: DaemonClock(clock))

        try await withRunning(reader) {
            for _ in 0..<3 {  // back off to 4 s on the clock, which then stands still
                await clock.waitForSleepers(1)
                clock.advance(by: clock.sleepingUntil.first ?? .zero)
            }
            await clock.waitForSleepers(1)
            #expect(clock.sleepingUntil == [.seconds(8)])
            reader.update(.init(enabled: true, host: "127.0.0.1", port: gpsd.port))
            try await core.publisher.waitForState("gps.connected") { $0.gps.connected }
        }
        try await gpsd.stop()
    }

    @Test func enablingADisabledReaderConnectsAtOnce() async throws {
        let core = try CoreHarness(gpsEnabled: true)
        let clock = ManualClock()
        let gpsd = try await GPSFake.start(NMEALog.bu353s4)
        defer { gpsd.kill() }
        let reader = reader(port: gpsd.port, enabled: false, core: core, clock: DaemonClock(clock))

        try await withRunning(reader) {
            reader.update(.init(enabled: true, host: "127.0.0.1", port: gpsd.port))
            try await core.publisher.waitForState("gps.connected") { $0.gps.connected }
        }
        try await gpsd.stop()
    }
}

/// A TCP socket listening on 127.0.0.1 (port chosen by the system) that accepts nobody: a
/// connection made to it waits in its backlog, where `hasPendingConnection` sees it.
private final class TCPListener: Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError(message: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ChildProcessError(message: "listen on 127.0.0.1: \(reason)")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(fd)
    }

    /// Whether a connection waits to be accepted.
    var hasPendingConnection: Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }
}

/// A TCP server on 127.0.0.1 (port chosen by the system) that accepts every connection and closes
/// it at once, on a thread of its own, until `stop()`.
private final class HangUpServer: Sendable {
    let port: Int
    private let accepted = Observed(0)
    private let stopping = Observed(false)
    private let ended = Observed(false)

    init() throws {
        let listener = try TCPListener()
        port = listener.port
        let (accepted, stopping, ended) = (accepted, stopping, ended)
        Thread.detachNewThread {
            defer { ended.update { $0 = true } }
            var poller = pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0)
            while !stopping.value {
                poller.revents = 0
                guard poll(&poller, 1, 20) > 0 else { continue }
                let fd = accept(listener.fd, nil, nil)
                if fd >= 0 {
                    close(fd)
                    accepted.update { $0 += 1 }
                }
            }
            withExtendedLifetime(listener) {}
        }
    }

    /// Connections accepted (and closed) so far.
    var hangUps: Int { accepted.value }

    /// Returns once `count` connections were accepted.
    func waitForHangUps(_ count: Int) async throws {
        _ = try await accepted.wait(for: "\(count) connections") { $0 >= count ? true : nil }
    }

    /// Stops accepting and waits until the thread is done with the socket.
    func stop() async {
        stopping.update { $0 = true }
        _ = try? await ended.wait(for: "the hang-up server to stop") { $0 ? true : nil }
    }
}

/// libgps's socket with a number of FD_SETSIZE (1,024) or more, which `select()` cannot take: the
/// reader drains libgps without it, so fixes arrive as with any other number.
@Suite(.serialized, .processTimeLimit) struct GPSDHighDescriptorTests {
    @Test func withMoreThan1024DescriptorsOpenTheFixesOfAGpsfakeStillArrive() async throws {
        let gpsd = try await GPSFake.start(NMEALog.bu353s4)
        defer { gpsd.kill() }
        let core = try CoreHarness(gpsEnabled: true)
        let reader = GPSDReader(
            endpoint: .init(enabled: false, host: "127.0.0.1", port: gpsd.port), location: core.location, clock: .continuous,
            logger: silentLogger)
        let filler = try HighDescriptors()
        try await withRunning(reader) {
            try await connectAboveFDSetSize(reader, port: gpsd.port, core: core, filler: filler)
            let connectedAt = core.publisher.states.value.count
            let fixed = try await core.publisher.waitForStates("a fix on the new connection", timeout: .seconds(20)) {
                $0.dropFirst(connectedAt).first { $0.gps.lastFix != nil }
            }
            #expect(abs((fixed.gps.lastFix?.coordinate.lat ?? 0) - -37.7848) < 0.01, "\(String(describing: fixed.gps.lastFix))")
        }
        try await gpsd.stop()
    }

    @Test func aFixLibgpsAlreadyHoldsIsDeliveredWithoutWaitingForGpsdsNextMessage() async throws {
        // Each connection gets two fixes in one segment: libgps reads both and hands out the first;
        // the second must follow though the stand-in sends nothing more.
        let gpsd = try ScriptedGPSD { connection in
            let tpv = { (lat: Double) in #"{"class":"TPV","device":"/dev/pts/1","mode":3,"lat":\#(lat),"lon":10.5,"eph":12.0}"# }
            return tpv(Double(connection)) + "\n" + tpv(Double(connection) + 0.5) + "\n"
        }
        defer { gpsd.stop() }
        let core = try CoreHarness(gpsEnabled: true)
        let reader = GPSDReader(
            endpoint: .init(enabled: false, host: "127.0.0.1", port: gpsd.port), location: core.location, clock: .continuous,
            logger: silentLogger)
        let filler = try HighDescriptors()
        // A change of gps.last_fix alone is published at most once a second, by the held notices.
        let heldNotices = ClosureService { [engine = core.engine] in await cancelWhenGracefulShutdown { await engine.runHeldNotices() } }
        try await withRunning([reader, heldNotices]) {
            try await connectAboveFDSetSize(reader, port: gpsd.port, core: core, filler: filler)
            // The last connection is the reader's: its second fix is at its number + 0.5.
            try await core.publisher.waitForState("the second fix of the last connection") { [gpsd] in
                $0.gps.lastFix?.coordinate.lat == Double(gpsd.connections) + 0.5
            }
        }
    }

    /// Connects `reader` (disabled until then) to gpsd with libgps's socket numbered FD_SETSIZE or
    /// more. `filler` holds every lower number; when another test frees one meanwhile, the socket
    /// gets it: the reader leaves, the filler takes it, and the reader connects again.
    private func connectAboveFDSetSize(_ reader: GPSDReader, port: Int, core: CoreHarness, filler: HighDescriptors) async throws {
        for _ in 0..<10 {
            try filler.topUp()
            reader.update(.init(enabled: true, host: "127.0.0.1", port: port))
            try await core.publisher.waitForStates("gps.connected") { $0.last?.gps.connected == true ? () : nil }
            if reader.descriptor.load(ordering: .relaxed) >= FD_SETSIZE { return }
            reader.update(.init(enabled: false, host: "127.0.0.1", port: port))
            try await core.publisher.waitForStates("gps.connected false") { $0.last?.gps.connected == false ? () : nil }
        }
        Issue.record("libgps's socket never got a number of FD_SETSIZE or more")
    }
}

/// Descriptors (of /dev/null, closed on exec) that take every number up to a little above
/// FD_SETSIZE, so a socket opened meanwhile gets one `select()` cannot take; closed when it goes
/// away. The soft limit of open files is raised to the hard one for it if need be.
private final class HighDescriptors: Sendable {
    private let descriptors = Mutex<[Int32]>([])

    init() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let wanted = rlim_t(FD_SETSIZE + 256)
        if limit.rlim_cur < wanted {
            guard limit.rlim_max >= wanted else {
                throw ChildProcessError(message: "the hard limit of open files, \(limit.rlim_max), is below \(wanted)")
            }
            limit.rlim_cur = wanted
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        try topUp()
    }

    /// Takes every free number below FD_SETSIZE + 16 (another test may have freed some).
    func topUp() throws {
        try descriptors.withLock { descriptors in
            while true {
                let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw ChildProcessError(message: "open /dev/null: \(String(cString: strerror(errno)))") }
                descriptors.append(fd)
                if fd >= FD_SETSIZE + 16 { return }
            }
        }
    }

    deinit {
        for fd in descriptors.withLock({ $0 }) { close(fd) }
    }
}

/// A stand-in for gpsd on 127.0.0.1: to each connection (1, 2, …) it sends what `script` gives in
/// one write and then nothing, keeping the connections open until `stop()`; on a thread of its own.
private final class ScriptedGPSD: Sendable {
    let port: Int
    private let accepted = Observed(0)
    private let stopping = Observed(false)

    init(_ script: @escaping @Sendable (Int) -> String) throws {
        let listener = try TCPListener()
        port = listener.port
        let (accepted, stopping) = (accepted, stopping)
        Thread.detachNewThread {
            var poller = pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0)
            var connections: [Int32] = []
            while !stopping.value {
                poller.revents = 0
                guard poll(&poller, 1, 20) > 0 else { continue }
                let connection = accept(listener.fd, nil, nil)
                guard connection >= 0 else { continue }
                connections.append(connection)
                accepted.update { $0 = connections.count }  // before the client can read anything
                let payload = Array(script(connections.count).utf8)
                _ = payload.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            for connection in connections { close(connection) }
            withExtendedLifetime(listener) {}
        }
    }

    /// Connections accepted so far.
    var connections: Int { accepted.value }

    func stop() {
        stopping.update { $0 = true }
    }
}
