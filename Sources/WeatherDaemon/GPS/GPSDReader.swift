import CGPS
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization
import WeatherCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads gpsd through libgps and streams its reports into the `LocationService`.
///
/// libgps is blocking, so every call runs on one dedicated thread, which alone touches the
/// `gps_data_t`. When gpsd is absent or goes away the reader says so at once and reconnects with
/// backoff (1 s doubling to at most 30 s); the rest of the daemon keeps serving meanwhile.
///
/// The thread waits for gpsd's next message without a timeout (no periodic wake-up while gpsd is
/// quiet): a shutdown or a new endpoint ends the wait through an eventfd (``WakeFD``). The socket is
/// non-blocking and libgps is drained with `gps_read` alone, never `select()` (see the CGPS shim):
/// any descriptor number works, and a message libgps holds is taken at once.
public final class GPSDReader: Service, CustomStringConvertible {
    static let maxBackoff = Duration.seconds(30)

    /// Where gpsd is and whether to read it; changed by a configuration reload.
    public struct Endpoint: Sendable, Equatable {
        public var enabled: Bool
        public var host: String
        public var port: Int

        public init(enabled: Bool, host: String, port: Int) {
            self.enabled = enabled
            self.host = host
            self.port = port
        }

        /// The endpoint of the `[gpsd]` table.
        public init(_ config: GPSDConfig) {
            self.init(enabled: config.enabled, host: config.host, port: config.port)
        }
    }

    private let endpoint: Mutex<Endpoint>
    /// Ends a wait between connection attempts (or while disabled) when the endpoint changed.
    private let wakeup = Wakeup()
    /// Ends the reader thread's wait for gpsd (shutdown, or a new endpoint).
    private let threadWakeup = WakeFD()
    private let location: LocationService
    private let clock: DaemonClock
    private let logger: Logger
    /// The socket to gpsd while connected, else -1 (tests look at its number).
    let descriptor = Atomic<Int32>(-1)

    public init(endpoint: Endpoint, location: LocationService, clock: DaemonClock, logger: Logger) {
        self.endpoint = Mutex(endpoint)
        self.location = location
        self.clock = clock
        self.logger = logger
    }

    public var description: String { "GPSDReader" }

    /// Reads gpsd at `endpoint` from now on: a new endpoint is connected to at once, whether the
    /// reader is connected, waiting out its backoff, or disabled.
    public func update(_ endpoint: Endpoint) {
        let changed = self.endpoint.withLock { current in
            defer { current = endpoint }
            return current != endpoint
        }
        if changed {
            wakeup.wake()
            threadWakeup.signal()
        }
    }

    /// The heap-allocated `gps_data_t`, used only on the reader's thread.
    private final class Session: @unchecked Sendable {
        let data: UnsafeMutablePointer<gps_data_t>
        var open = false

        init() {
            data = weatherd_gps_allocate()
        }

        /// Closes the connection to gpsd, if one is open.
        func close() {
            if open { gps_close(data) }
            open = false
        }

        deinit {
            close()
            free(data)
        }
    }

    public func run() async throws {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        defer { thread.shutdownGracefully { _ in } }
        let session = Session()
        do {
            try await cancelWhenGracefulShutdown { try await self.loop(session, on: thread) }
        } catch is CancellationError {
            // Shutting down.
        }
        try? await thread.runIfActive { session.close() }
    }

    private func loop(_ session: Session, on thread: NIOThreadPool) async throws {
        var backoff = ReconnectBackoff(maximum: Self.maxBackoff)
        var reportedAbsent = false
        while !Task.isCancelled {
            let current = endpoint.withLock { $0 }
            guard current.enabled else {
                _ = try await wakeup.sleep(until: nil, on: clock)  // idle until a reload enables gpsd
                continue
            }
            let (host, port) = (current.host, String(current.port))
            let opened = try await thread.runIfActive { () -> Int32 in
                if weatherd_gps_open(session.data, host, port) == 0 {
                    session.open = true
                    self.descriptor.store(session.data.pointee.gps_fd, ordering: .relaxed)
                    return 0
                }
                return errno == 0 ? -1 : errno
            }
            if opened != 0 {
                let reason = opened < 0 ? "no answer" : String(cString: strerror(opened))
                if !reportedAbsent {
                    logger.warning("gpsd at \(host):\(port) is not answering (\(reason)); retrying with backoff")
                    reportedAbsent = true
                } else {
                    logger.debug("gpsd at \(host):\(port) still not answering (\(reason)); next try in \(backoff.current)")
                }
                if try await wakeup.sleep(until: clock.now.advanced(by: backoff.current), on: clock) {
                    backoff.reset()  // a new endpoint: try it at once
                } else {
                    backoff.lengthen()
                }
                continue
            }
            logger.notice("connected to gpsd at \(host):\(port)")
            reportedAbsent = false
            await location.setConnected(true)
            let ended = try await read(session, of: current, on: thread)
            descriptor.store(-1, ordering: .relaxed)
            await location.setConnected(false)
            switch ended {
            case .endpointChanged:
                logger.notice("gpsd settings changed; leaving \(host):\(port)")
                backoff.reset()
            case .wentAway(let reports) where reports > 0:
                logger.warning("gpsd at \(host):\(port) went away; reconnecting")
                backoff.reset()
            case .wentAway:
                // It hung up before saying anything: a failed attempt, not a session. Back off, or a
                // gpsd that cannot serve would be reconnected to in a busy loop.
                logger.warning("gpsd at \(host):\(port) hung up before sending anything; retrying in \(backoff.current)")
                if try await wakeup.sleep(until: clock.now.advanced(by: backoff.current), on: clock) {
                    backoff.reset()
                } else {
                    backoff.lengthen()
                }
            }
        }
    }

    /// How a connection to gpsd ended.
    private enum SessionEnd {
        /// gpsd closed it, after sending this many messages.
        case wentAway(reports: Int)
        /// A reload changed the endpoint; the connection was closed.
        case endpointChanged
    }

    /// Reads reports until gpsd goes away, the endpoint is no longer `connected` (closes the
    /// connection) or the task is cancelled (throws).
    private func read(_ session: Session, of connected: Endpoint, on thread: NIOThreadPool) async throws -> SessionEnd {
        var reports = 0
        while true {
            threadWakeup.drain()  // before looking at cancellation and the endpoint: a later wake-up ends the next wait
            try Task.checkCancellation()
            if endpoint.withLock({ $0 }) != connected {
                try await thread.runIfActive { session.close() }
                return .endpointChanged
            }
            let wakeFD = threadWakeup
            let next = try await withTaskCancellationHandler {
                try await thread.runIfActive { () -> (Int32, weatherd_gps_report) in
                    var report = weatherd_gps_report()
                    let status = weatherd_gps_next(session.data, wakeFD.fd, &report)
                    if status < 0 { session.close() }
                    return (status, report)
                }
            } onCancel: {
                wakeFD.signal()
            }
            switch next.0 {
            case ..<0:
                return .wentAway(reports: reports)
            case 0:
                continue
            default:
                reports += 1
                let report = next.1
                guard report.has_mode != 0 else { continue }  // not a TPV
                await location.receive(
                    GPSReport(
                        mode: Int(report.mode),
                        coordinate: report.has_position != 0 ? Coordinate(lat: report.latitude, lon: report.longitude) : nil,
                        horizontalError: report.eph.isFinite ? report.eph : nil))
            }
        }
    }
}

extension GPSDReader: Reconfigurable {
    /// A new gpsd host, port or `enabled` is connected to (or left) at once.
    public func apply(_ change: ConfigChange) {
        update(Endpoint(change.new.gpsd))
    }
}
