import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import WeatherCore

/// Builds the daemon's services from a checked configuration and runs them in one `ServiceGroup`
/// until SIGTERM or SIGINT.
public struct Daemon: Sendable {
    private let config: DaemonConfig
    private let apiKey: Secret
    private let logger: Logger

    public init(config: DaemonConfig, apiKey: Secret, logger: Logger) {
        self.config = config
        self.apiKey = apiKey
        self.logger = logger
    }

    public func run() async throws {
        let clock = DaemonClock.continuous
        let transport = CurlTransport(userAgent: "weatherd/\(WeatherdVersion.current)", numberOfThreads: max(4, config.region.concurrency))
        let upstream = OpenWeatherMapClient(
            transport: transport, baseURL: config.openWeatherMap.baseURL, apiKey: apiKey,
            units: config.openWeatherMap.units, lang: config.openWeatherMap.lang, timeout: config.openWeatherMap.timeout,
            logger: logger)
        let lookups = LookupService(
            upstream: upstream,
            limits: .init(cacheTTL: config.openWeatherMap.cacheTTL, requestsPerMinute: config.openWeatherMap.requestsPerMinute),
            clock: clock, logger: logger)
        let store = FileCityStore(directory: config.state.directory, logger: logger)
        let watched: WatchedCities
        do {
            watched = try WatchedCities(configured: config.cities, store: store)
        } catch {
            throw DaemonError(message: "cannot read the stored city list in \(config.state.directory): \(error)")
        }
        let hub = NotificationHub()
        let engine = SearchEngine(
            cities: watched, gps: GPSStatus(enabled: config.gpsd.enabled), lookups: lookups, publisher: hub, logger: logger)
        let gpsd = config.gpsd
        let location = LocationService(
            settings: .init(
                enabled: gpsd.enabled, maxHorizontalError: gpsd.maxHorizontalError, locateTimeout: gpsd.locateTimeout,
                follow: gpsd.follow, followDistance: gpsd.followDistance),
            engine: engine, clock: clock, logger: logger)
        let regions = RegionSearches(
            settings: .init(debounce: config.region.debounce, around: config.region.around, concurrency: config.region.concurrency),
            engine: engine, lookups: lookups, clock: clock, logger: logger)
        let handler = RequestHandler(engine: engine, location: location, regions: regions, hub: hub, logger: logger)
        let server = SocketServer(
            settings: .init(path: config.socket.path, mode: config.socket.mode, maxClients: config.socket.maxClients),
            handler: handler, logger: logger)
        let refreshInterval = config.refresh
        let refresher = RefresherService(
            refresher: CityRefresher(engine: engine, clock: clock, interval: { refreshInterval }))

        logger.notice("weatherd \(WeatherdVersion.current) starting: \(watched.effective.count) watched cities, OpenWeatherMap at \(config.openWeatherMap.baseURL)")
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: server), .init(service: refresher), .init(service: RegionService(regions: regions)),
        ]
        if gpsd.enabled {
            services.append(.init(service: GPSDReader(host: gpsd.host, port: gpsd.port, location: location, clock: clock, logger: logger)))
            services.append(.init(service: FollowService(location: location)))
        }
        let group = ServiceGroup(configuration: .init(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
        logger.notice("weatherd stopped")
    }
}

/// Runs the watched-city rounds as a service; it stops at graceful shutdown.
struct RefresherService: Service, CustomStringConvertible {
    let refresher: CityRefresher
    var description: String { "CityRefresher" }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await refresher.run() }
        } catch is CancellationError {
            // Shutting down.
        }
    }
}

/// Runs the debounced region searches as a service.
struct RegionService: Service, CustomStringConvertible {
    let regions: RegionSearches
    var description: String { "RegionSearches" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await regions.run() }
    }
}

/// A fatal error of the daemon (exit status 1).
public struct DaemonError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
