import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import WeatherCore

/// Builds the daemon's services from a checked configuration and runs them in one `ServiceGroup`
/// until SIGTERM or SIGINT; SIGHUP re-reads the configuration.
public struct Daemon: Sendable {
    /// Reads and checks the configuration (at a reload: again, from the same place).
    public typealias ConfigSource = @Sendable () throws(ConfigError) -> (DaemonConfig, Secret)

    private let initial: (config: DaemonConfig, apiKey: Secret)
    private let source: ConfigSource
    private let logger: Logger
    private let environment: [String: String]

    /// - Parameters:
    ///   - initial: the configuration to start with, as `source` gave it.
    ///   - source: reads the configuration again at each SIGHUP.
    public init(
        initial: (config: DaemonConfig, apiKey: Secret), source: @escaping ConfigSource, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.initial = initial
        self.source = source
        self.logger = logger
        self.environment = environment
    }

    public func run() async throws {
        let (config, apiKey) = initial
        let clock = DaemonClock.continuous
        let notifier = SystemdNotifier(environment: environment)
        notifier.notify(["STATUS=starting"])

        let transport = CurlTransport(userAgent: "weatherd/\(WeatherdVersion.current)", numberOfThreads: max(4, config.region.concurrency))
        let upstream = OpenWeatherMapClient(
            transport: transport, baseURL: config.openWeatherMap.baseURL, apiKey: apiKey,
            units: config.openWeatherMap.units, lang: config.openWeatherMap.lang, timeout: config.openWeatherMap.timeout,
            logger: logger)
        let lookups = LookupService(upstream: upstream, limits: config.lookupLimits, clock: clock, logger: logger)
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
        let location = LocationService(settings: config.locationSettings, engine: engine, clock: clock, logger: logger)
        let regions = RegionSearches(settings: config.regionSettings, engine: engine, lookups: lookups, clock: clock, logger: logger)
        let handler = RequestHandler(engine: engine, location: location, regions: regions, hub: hub, logger: logger)

        let inherited = ListenFDs.take(environment: environment)
        if inherited.count > 1 { logger.warning("systemd passed \(inherited.count) sockets; serving on the first") }
        let socketPath = config.socket.path
        let server = SocketServer(
            settings: .init(
                path: socketPath, mode: config.socket.mode, maxClients: config.socket.maxClients,
                inheritedSocket: inherited.first),
            handler: handler, logger: logger,
            onListening: { notifier.notify(["READY=1", "STATUS=serving on \(socketPath)"]) })
        let refreshInterval = Shared(config.refresh)
        let reader = GPSDReader(endpoint: config.gpsdEndpoint, location: location, clock: clock, logger: logger)
        let reloader = ConfigReloader(
            source: source, running: config, upstream: upstream, lookups: lookups, engine: engine, location: location,
            reader: reader, regions: regions, server: server, refreshInterval: refreshInterval, notifier: notifier, logger: logger)

        logger.notice("weatherd \(WeatherdVersion.current) starting: \(watched.effective.count) watched cities, OpenWeatherMap at \(config.openWeatherMap.baseURL)")
        let services: [any Service] = [
            server,
            RefresherService(refresher: CityRefresher(engine: engine, clock: clock, interval: { refreshInterval.current })),
            RegionService(regions: regions),
            reader,
            FollowService(location: location),
            reloader,
            SystemdService(notifier: notifier, watchdog: SystemdNotifier.watchdogInterval(environment: environment), clock: clock, logger: logger),
        ]
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0) },
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

extension DaemonConfig {
    var lookupLimits: LookupService.Limits {
        .init(cacheTTL: openWeatherMap.cacheTTL, requestsPerMinute: openWeatherMap.requestsPerMinute)
    }

    var locationSettings: LocationService.Settings {
        .init(
            enabled: gpsd.enabled, maxHorizontalError: gpsd.maxHorizontalError, locateTimeout: gpsd.locateTimeout,
            follow: gpsd.follow, followDistance: gpsd.followDistance)
    }

    var regionSettings: RegionSearches.Settings {
        .init(debounce: region.debounce, around: region.around, concurrency: region.concurrency)
    }

    var gpsdEndpoint: GPSDReader.Endpoint {
        .init(enabled: gpsd.enabled, host: gpsd.host, port: gpsd.port)
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
