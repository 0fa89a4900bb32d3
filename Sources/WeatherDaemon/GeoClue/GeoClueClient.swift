import CSDBus
import Logging
import NIOPosix
import ServiceLifecycle
import WeatherCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Takes the desktop's location from GeoClue2 over the system D-Bus and hands its fixes (source
/// `geoclue`) to the `LocationService`.
///
/// weatherd registers as its own GeoClue agent (GeoClue 2.6 starts no client without one for its
/// user), asks for a client with `geoclue.desktop_id` and `geoclue.accuracy`, starts it and reads
/// each location GeoClue announces. When GeoClue is absent, refuses or goes away, ``GeoClueLink``
/// decides what is logged and when to try again; the rest of the daemon is untouched.
///
/// sd-bus is used on one thread of its own, which alone touches the bus: it waits in poll(2) on
/// the bus and on an eventfd (``WakeFD``) that a shutdown signals, so every wait ends at shutdown.
public final class GeoClueClient: Service, CustomStringConvertible {
    private let config: GeoClueConfig
    private let location: LocationService
    private let clock: DaemonClock
    private let logger: Logger
    /// Ends the bus thread's wait at shutdown.
    private let wake = WakeFD()

    public init(config: GeoClueConfig, location: LocationService, clock: DaemonClock, logger: Logger) {
        self.config = config
        self.location = location
        self.clock = clock
        self.logger = logger
    }

    public var description: String { "GeoClueClient" }

    public func run() async throws {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        defer { thread.shutdownGracefully { _ in } }
        do {
            try await cancelWhenGracefulShutdown { try await self.loop(on: thread) }
        } catch is CancellationError {
            // Shutting down.
        }
    }

    private func loop(on thread: NIOThreadPool) async throws {
        await location.publishSources()  // the geoclue entry: enabled, not connected
        var link = GeoClueLink(desktopID: config.desktopID)
        var action = link.begin()
        while true {
            try Task.checkCancellation()
            await perform(action)
            switch action.next {
            case .connect, .serve:
                action = try await session(on: thread, link: &link)
            case .wait(let duration):
                try await clock.sleep(until: clock.now.advanced(by: duration))
                action = link.retry()
            }
        }
    }

    /// Logs the action's line and publishes its `connected`.
    private func perform(_ action: GeoClueLink.Action) async {
        if let log = action.log {
            switch log.level {
            case .debug: logger.debug("\(log.message)")
            case .notice: logger.notice("\(log.message)")
            case .warning: logger.warning("\(log.message)")
            }
        }
        if let connected = action.connected { await location.setConnected(connected, source: .geoclue) }
    }

    /// One attempt, from connecting to the client's end: the fixes go to the location service on
    /// the way; returns the link's decision on how it ended.
    private func session(on thread: NIOThreadPool, link: inout GeoClueLink) async throws -> GeoClueLink.Action {
        let (events, continuation) = AsyncStream.makeStream(of: GeoClueConversation.Event.self)
        let conversation = GeoClueConversation(
            desktopID: config.desktopID, accuracy: config.accuracy, wakeFD: wake.fd, emit: { continuation.yield($0) })
        wake.drain()  // before the attempt: a shutdown from now on ends it
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [wake] in
                defer { continuation.finish() }
                try await withTaskCancellationHandler {
                    try await thread.runIfActive { conversation.run() }
                } onCancel: {
                    wake.signal()
                }
            }
            var outcome: GeoClueLink.Action?
            for await event in events {
                switch event {
                case .started:
                    let action = link.started(accuracy: config.accuracy)
                    await perform(action)
                case .fix(let coordinate, let horizontalError, let at):
                    let verdict = await location.report(
                        coordinate: coordinate, horizontalError: horizontalError, at: at, source: .geoclue)
                    logger.debug("GeoClue fix \(coordinate) ±\(horizontalError) m: \(verdict)")
                case .unreadable(let detail):
                    logger.debug("GeoClue: a location could not be read: \(detail)")
                case .refused(let refusal):
                    outcome = link.refused(refusal)
                case .lost(let detail):
                    outcome = link.lost(detail)
                }
            }
            try await group.waitForAll()
            try Task.checkCancellation()
            return outcome ?? link.lost("the bus thread ended")
        }
    }
}

/// One attempt's conversation with GeoClue on the bus thread: connect, register the agent, get,
/// configure and start the client, then take its locations until it ends. Used on that thread only.
final class GeoClueConversation: @unchecked Sendable {
    /// What the conversation tells the service as it goes.
    enum Event: Sendable {
        case started
        /// A location; `at` nil when GeoClue gave no time (then it is dated on arrival).
        case fix(Coordinate, horizontalError: Double, at: Date?)
        /// A location announced but not read (GeoClue went away meanwhile, or it lacked a field).
        case unreadable(String)
        /// The attempt ended before the client started.
        case refused(GeoClueRefusal)
        /// The started client ended.
        case lost(String)
    }

    private let desktopID: String
    private let accuracy: GeoClueAccuracy
    private let wakeFD: Int32
    private let emit: @Sendable (Event) -> Void

    init(desktopID: String, accuracy: GeoClueAccuracy, wakeFD: Int32, emit: @escaping @Sendable (Event) -> Void) {
        self.desktopID = desktopID
        self.accuracy = accuracy
        self.wakeFD = wakeFD
        self.emit = emit
    }

    /// Runs until the client ends, the attempt is refused, or the wake fd is signalled (then it
    /// ends without an event).
    func run() {
        var bus: OpaquePointer?
        let opened = sd_bus_open_system(&bus)
        guard opened >= 0, let bus else {
            return emit(.refused(.classify(step: .connect, errorName: nil, message: Self.describe(errno: opened))))
        }
        // Closing the connection is GeoClue's sign that the client and the agent are gone.
        defer { sd_bus_close_unref(bus) }
        let agent = UnsafeMutablePointer<weatherd_geoclue_agent>.allocate(capacity: 1)
        agent.initialize(to: weatherd_geoclue_agent())
        defer { agent.deallocate() }
        withUnsafeMutableBytes(of: &agent.pointee.desktop_id) { buffer in
            let bytes = Array(desktopID.utf8.prefix(buffer.count - 1)) + [0]
            buffer.copyBytes(from: bytes)
        }
        agent.pointee.max_accuracy_level = accuracy.level
        let events = UnsafeMutablePointer<weatherd_geoclue_events>.allocate(capacity: 1)
        events.initialize(to: weatherd_geoclue_events())
        defer {
            free(events.pointee.location_path)
            events.deallocate()
        }

        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        /// Whether a step failed: then the refusal is told (a wake-up, i.e. shutdown, is not one).
        func failed(_ result: Int32, at step: GeoClueRefusal.Step) -> Bool {
            guard result < 0 else { return false }
            if result != -ECANCELED {
                let name = error.name.map { String(cString: $0) }
                emit(.refused(.classify(step: step, errorName: name, message: Self.describe(result, error))))
            }
            return true
        }
        var result = weatherd_geoclue_serve_agent(bus, agent)
        if result >= 0 { result = weatherd_geoclue_add_agent(bus, wakeFD, desktopID, &error) }
        if failed(result, at: .addAgent) { return }
        var clientPath: UnsafeMutablePointer<CChar>?
        result = weatherd_geoclue_get_client(bus, wakeFD, &clientPath, &error)
        if failed(result, at: .getClient) { return }
        guard let clientPath else { return emit(.refused(GeoClueRefusal(.failed, "GetClient gave no client"))) }
        defer { free(clientPath) }
        result = weatherd_geoclue_configure_client(bus, wakeFD, clientPath, desktopID, accuracy.level, &error)
        if result >= 0 { result = weatherd_geoclue_watch(bus, clientPath, events) }
        if failed(result, at: .configure) { return }
        result = weatherd_geoclue_start(bus, wakeFD, clientPath, &error)
        if failed(result, at: .start) { return }
        emit(.started)

        while true {
            let step = weatherd_bus_step(bus, wakeFD)
            if step == -ECANCELED { return }
            if step < 0 { return emit(.lost("the system bus closed: \(Self.describe(errno: step))")) }
            if events.pointee.service_changed != 0 { return emit(.lost("GeoClue left the system bus")) }
            guard let path = events.pointee.location_path else { continue }
            events.pointee.location_path = nil
            defer { free(path) }
            var read = weatherd_geoclue_location()
            let status = weatherd_geoclue_read_location(bus, wakeFD, path, &read, &error)
            if status == -ECANCELED { return }
            guard status >= 0 else {
                emit(.unreadable(Self.describe(status, error)))
                sd_bus_error_free(&error)
                continue
            }
            let at =
                read.timestamp_sec > 0
                ? Date(timeIntervalSince1970: Double(read.timestamp_sec) + Double(read.timestamp_usec) / 1_000_000) : nil
            emit(.fix(Coordinate(lat: read.latitude, lon: read.longitude), horizontalError: read.accuracy, at: at))
        }
    }

    private static func describe(_ result: Int32, _ error: sd_bus_error) -> String {
        if let message = error.message { return String(cString: message) }
        if let name = error.name { return String(cString: name) }
        return describe(errno: result)
    }

    private static func describe(errno result: Int32) -> String {
        String(cString: strerror(-result))
    }
}
