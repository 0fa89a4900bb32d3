import Logging
import NIOPosix
import Prometheus
import ServiceLifecycle
import UnixSignals
import WeatherCore
import WeatherSessions

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the daemon's services from a checked configuration and runs them in one `ServiceGroup`
/// until SIGTERM or SIGINT; SIGHUP re-reads the configuration.
public struct Daemon: Sendable {
    /// Reads and checks the configuration (at a reload: again, from the same place): the configuration
    /// with its warnings, and the providers' keys found for it.
    public typealias ConfigSource = @Sendable () throws(ConfigError) -> (loaded: LoadedConfig, keys: ProviderKeys)

    private let initial: (loaded: LoadedConfig, keys: ProviderKeys)
    private let source: ConfigSource
    private let logger: Logger
    private let environment: [String: String]
    private let metrics: PrometheusCollectorRegistry?

    /// - Parameters:
    ///   - initial: the configuration to start with, as `source` gave it; its warnings are logged at start.
    ///   - source: reads the configuration again at each SIGHUP.
    public init(
        initial: (loaded: LoadedConfig, keys: ProviderKeys), source: @escaping ConfigSource, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment, metrics: PrometheusCollectorRegistry? = nil
    ) {
        self.metrics = metrics
        self.initial = initial
        self.source = source
        self.logger = logger
        self.environment = environment
    }

    /// The executor every task of the daemon runs on (see `DaemonExecutor`); the task that calls
    /// `run()` should start on it too.
    public static var executor: any TaskExecutor { DaemonExecutor.shared }

    /// Runs until SIGTERM or SIGINT. Every task of the daemon runs on `DaemonExecutor` (a connection's
    /// session: on its event loop), and its clock sleeps on an event loop's timer (`EventLoopClock`),
    /// so that an idle daemon has no thread that wakes.
    public func run() async throws {
        try await withTaskExecutorPreference(DaemonExecutor.shared) {
            try await runServices()
        }
    }

    private func runServices() async throws {
        let (loaded, keys) = initial
        let config = loaded.config
        for warning in loaded.warnings { logger.warning("\(warning)") }
        if config.weather.providers.contains(.openWeatherMap), keys.openWeatherMap == nil {
            let serving = config.weather.providers.filter { $0.canServe(with: keys) }.map(\.displayName)
            logger.notice(
                "no OpenWeatherMap API key: serving weather from \(serving.joined(separator: ", ")); to add OpenWeatherMap, \(ConfigLoader.apiKeyHint(config))"
            )
        }
        let loopClock = EventLoopClock(loop: MultiThreadedEventLoopGroup.singleton.next())
        let clock = DaemonClock(loopClock)
        let notifier = SystemdNotifier(environment: environment)
        notifier.notify(["STATUS=starting"])

        let transport = CurlTransport(userAgent: "weatherd/\(WeatherdVersion.current)", numberOfThreads: max(4, config.region.concurrency))
        let upstream = OpenWeatherMapClient(
            transport: transport, baseURL: config.openWeatherMap.baseURL, apiKey: keys.openWeatherMap ?? Secret(""),
            units: config.weather.units, lang: config.weather.lang, timeout: config.openWeatherMap.timeout,
            logger: logger)
        let openMeteo = OpenMeteoClient(transport: transport, config, apiKey: keys.openMeteo, logger: logger)
        let airQuality = OpenMeteoAirQualityClient(transport: transport, endpoint: .init(config, apiKey: keys.openMeteo), logger: logger)
        // The state files are written on a thread of their own, never on an event loop.
        let stateWrites = NIOThreadPool(numberOfThreads: 1)
        stateWrites.start()
        let placeStore = FilePlaceStore(directory: config.state.directory, logger: logger, pool: stateWrites)
        let lookups = LookupService(
            upstreams: [upstream, openMeteo], airQuality: airQuality, limits: .init(config, keys: keys), placeStore: placeStore,
            clock: clock, logger: logger)
        let store = FileCityStore(directory: config.state.directory, logger: logger, pool: stateWrites)
        let watched: WatchedCities
        do {
            watched = try WatchedCities(configured: config.cities, store: store)
        } catch {
            await stop(transports: [transport], places: placeStore, stateWrites: stateWrites)
            throw DaemonError(message: "cannot read the stored city list in \(config.state.directory): \(error)")
        }
        let hub = NotificationHub()
        // Alerts: asked through a transport of their own, with the User-Agent the NWS requires.
        if config.alerts.contact.isEmpty {
            logger.warning(
                "alerts.contact is empty: the NWS asks every client to name a contact in its User-Agent (set alerts.contact to an e-mail address or URL)"
            )
        }
        let alertTransport = CurlTransport(userAgent: config.alerts.userAgent, numberOfThreads: 2)
        let alerts = AlertService(
            providers: config.alerts.providers.map { name -> any AlertProvider in
                switch name {
                case .nws: NWSAlertProvider(transport: alertTransport, config: config.alerts, logger: logger)
                }
            },
            settings: .init(config), clock: clock, logger: logger)
        // MQTT: the engine's changes go to the broker too, through a store of the latest per topic.
        let mqttClientID = config.mqtt.clientID.isEmpty ? MQTTPublisher.defaultClientID() : config.mqtt.clientID
        let mqttLatest = config.mqtt.brokerAddress.map { _ in
            MQTTLatest(topics: MQTTTopics(prefix: config.mqtt.topicPrefix, device: mqttClientID))
        }
        // Home Assistant: the watched cities' forecasts, refreshed after each change of the overlays.
        let forecasts = config.mqtt.homeAssistant ? mqttLatest.map { HomeAssistantForecastRefresher(latest: $0, logger: logger) } : nil
        let publisher = ChangePublishers(
            [hub] + (mqttLatest.map { [$0] } ?? []) + (forecasts.map { [$0.publisher] } ?? []) + [alerts.publisher])
        let engine = SearchEngine(
            cities: watched, gps: GPSStatus(enabled: config.gpsd.enabled), lookups: lookups, publisher: publisher,
            budget: await lookups.budget, providers: await lookups.providerStatuses, services: [lookups, alerts], clock: clock,
            logger: logger)
        let location = LocationService(settings: .init(config), engine: engine, clock: clock, logger: logger)
        // OwnTracks: its devices' weather through the same lookups (cell, cache, budget) as every search.
        let ownTracks = OwnTracksService(
            settings: .init(config), location: location, engine: engine, lookUp: { [lookups] in try await lookups.lookup(.coordinate($0)) },
            makeOpener: { [logger] secret in
                if let problem = SodiumOpener.libraryProblem { logger.error("OwnTracks: encrypted payloads cannot be opened: \(problem)") }
                return SodiumOpener(secret: secret)
            }, clock: clock, logger: logger)
        let regions = RegionSearches(settings: .init(config.region), engine: engine, clock: clock, logger: logger)
        let reloads = ReloadRequests()
        let handler = RequestHandler(
            engine: engine, location: location, regions: regions, hub: hub, reloads: reloads, alerts: alerts, logger: logger)

        let inherited = ListenFDs.take(environment: environment)
        if inherited.count > 1 { logger.warning("systemd passed \(inherited.count) sockets; serving on the first") }
        let socketPath = config.socket.path
        let server = SocketServer(
            settings: .init(
                path: socketPath, mode: config.socket.mode, maxClients: config.socket.maxClients,
                inheritedSocket: inherited.first),
            handler: handler, logger: logger,
            onListening: { notifier.notify(["READY=1", "STATUS=serving on \(socketPath)"]) })
        var web: WebServer?
        if let listen = config.web.listenAddress {
            let assets = WebAssets.locate(environment: environment, executable: "/proc/self/exe")
            if let root = assets.root {
                logger.info("map page from \(root), Leaflet from \(assets.leaflet)")
            } else {
                logger.warning("the map page's files are not found (set WEATHERD_WEB_ROOT): / answers 404")
            }
            let exporter = metrics.map { registry in
                MetricsExporter(registry: registry) { [server, hub, lookups, engine, location] in
                    MetricsExporter.Snapshot(
                        budgetUsed: await lookups.requestsInLastMinute, unixClients: server.clientCount,
                        watchers: hub.watcherCount, searchRunning: await engine.currentState.running,
                        overlaysSeq: await engine.currentOverlays.seq, gpsdConnected: await location.gpsStatus.connected,
                        weather: await engine.weatherSeries)
                }
            }
            web = WebServer(
                config: config.web, listen: listen, handler: handler, engine: engine, assets: assets,
                airQualityScale: config.airQuality.scale, metrics: exporter, ownTracks: ownTracks,
                ownTracksHTTP: config.ownTracks.http, logger: logger)
        }
        var mqtt: MQTTPublisher?
        if let mqttLatest, let broker = config.mqtt.brokerAddress {
            mqtt = MQTTPublisher(
                settings: .init(config, broker: broker, clientID: mqttClientID, ownTracks: ownTracks), latest: mqttLatest, handler: handler,
                clock: clock, logger: logger)
        }
        let refresher = CityRefresher(engine: engine, clock: clock, refresh: config.refresh)
        let reader = GPSDReader(endpoint: .init(config.gpsd), location: location, clock: clock, logger: logger)
        let geoclue = config.geoclue.enabled ? GeoClueClient(config: config.geoclue, location: location, clock: clock, logger: logger) : nil
        // Each part applies its own keys of a reloaded configuration, in this order: the upstream and
        // its cache before the cities are looked up again.
        let reloader = ConfigReloader(
            source: source, running: config,
            parts: [server] + (web.map { [$0] } ?? []) + [
                upstream, openMeteo, airQuality, lookups, engine, location, ownTracks, reader, regions, refresher, alerts,
            ],
            notifier: notifier, servingStatus: "serving on \(socketPath)", requests: reloads, logger: logger)

        let providers = config.weather.providers.filter { $0.canServe(with: keys) }.map { provider in
            switch provider {
            case .openWeatherMap: "OpenWeatherMap at \(config.openWeatherMap.baseURL)"
            case .openMeteo:
                "Open-Meteo at \(openMeteo.endpoint.forecastHost)\(keys.openMeteo == nil ? " (free API, non-commercial use)" : " (subscription)")"
            }
        }
        logger.notice(
            "weatherd \(WeatherdVersion.current) starting: \(watched.effective.count) watched cities, weather from \(providers.joined(separator: ", then "))"
        )
        let forecastServices: [any Service] =
            forecasts.map { forecasts in [untilShutdown { try await forecasts.run(engine: engine) }] } ?? []
        let budgetWatcher = BudgetWatcher(lookups: lookups, engine: engine, clock: clock)
        let resumes = ResumeDetector(
            clock: clock, clocks: ResumeDetector.clocks, lookups: lookups, refresher: refresher, location: location, logger: logger)
        let services: [any Service] =
            [server] + (web.map { [$0] } ?? []) + [
                untilShutdown { try await refresher.run() },  // the watched-city rounds
                untilShutdown { await budgetWatcher.run() },  // the end of a 429 block in state.budget
                untilShutdown { await engine.runHeldNotices() },  // held state notifications, when due
                untilShutdown { await regions.run() },  // the debounced region searches
                untilShutdown { try await alerts.run(engine: engine) },  // the alerts of the places on the map
                reader,
            ] + (geoclue.map { [$0] } ?? []) + [
                untilShutdown { await location.runFollow() },  // the follow-mode searches
                untilShutdown { await location.runExpiry() },  // the fused location dropped at location.max_age
                untilShutdown { await ownTracks.run() },  // OwnTracks payloads from MQTT, the devices' weather and expiry
                // A wake from suspend refreshes at once, and ends the sleeps whose deadline passed meanwhile.
                untilShutdown { await resumes.runOnClockJumps(logger: logger, jumped: loopClock.rearm) },
                reloader,
            ] + (mqtt.map { [$0] } ?? []) + forecastServices + [
                SystemdService(
                    notifier: notifier, watchdog: SystemdNotifier.watchdogInterval(environment: environment), clock: clock, logger: logger)
            ]
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await group.run()
        } catch {
            await stop(transports: [transport, alertTransport], places: placeStore, stateWrites: stateWrites)
            throw error
        }
        await stop(transports: [transport, alertTransport], places: placeStore, stateWrites: stateWrites)
        logger.notice("weatherd stopped")
    }

    /// A service that runs `body` until it returns or graceful shutdown cancels it (its end then,
    /// not an error).
    private func untilShutdown(_ body: @escaping @Sendable () async throws -> Void) -> ClosureService {
        ClosureService {
            do {
                try await cancelWhenGracefulShutdown { try await body() }
            } catch is CancellationError {
                // Shutting down.
            }
        }
    }

    /// After the services: the HTTP transport stops, the places found last are written.
    private func stop(transports: [CurlTransport], places: FilePlaceStore, stateWrites: NIOThreadPool) async {
        for transport in transports { await transport.shutdown() }
        await places.flush()
        try? await stateWrites.shutdownGracefully()
    }
}
