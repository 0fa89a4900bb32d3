import Logging
import ServiceLifecycle
import UnixSignals
import WeatherCore

/// Re-reads the configuration on SIGHUP and applies what changed without dropping a client:
/// watched cities, refresh, OpenWeatherMap endpoint, key, units and language, limits, gpsd and
/// region settings, socket mode and max_clients. A broken file is reported and the running
/// configuration kept; a change that needs a restart (socket path, state directory, region
/// debounce) is logged as such.
final class ConfigReloader: Service, CustomStringConvertible {
    private let source: Daemon.ConfigSource
    private let running: Shared<DaemonConfig>
    private let upstream: OpenWeatherMapClient
    private let lookups: LookupService
    private let engine: SearchEngine
    private let location: LocationService
    private let reader: GPSDReader
    private let regions: RegionSearches
    private let server: SocketServer
    private let refreshInterval: Shared<Duration>
    private let notifier: SystemdNotifier
    private let logger: Logger

    init(
        source: @escaping Daemon.ConfigSource, running: DaemonConfig, upstream: OpenWeatherMapClient, lookups: LookupService,
        engine: SearchEngine, location: LocationService, reader: GPSDReader, regions: RegionSearches, server: SocketServer,
        refreshInterval: Shared<Duration>, notifier: SystemdNotifier, logger: Logger
    ) {
        self.source = source
        self.running = Shared(running)
        self.upstream = upstream
        self.lookups = lookups
        self.engine = engine
        self.location = location
        self.reader = reader
        self.regions = regions
        self.server = server
        self.refreshInterval = refreshInterval
        self.notifier = notifier
        self.logger = logger
    }

    var description: String { "ConfigReloader" }

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups { await self.reload() }
        }
    }

    /// Reads the configuration again and applies it.
    func reload() async {
        logger.notice("SIGHUP: reloading the configuration")
        notifier.notify(["STATUS=reloading the configuration"])
        let new: DaemonConfig
        let key: Secret
        do {
            (new, key) = try source()
        } catch {
            for problem in error.problems { logger.error("reload: \(problem)") }
            logger.error("reload failed; keeping the running configuration")
            notifier.notify(["STATUS=serving; the last reload failed (see the log)"])
            return
        }
        let old = running.replace(with: new)
        var changed: [String] = []

        if new.socket.path != old.socket.path {
            logger.warning("reload: socket.path changed to \(new.socket.path); it takes effect after a restart")
        }
        if new.state.directory != old.state.directory {
            logger.warning("reload: state.directory changed to \(new.state.directory); it takes effect after a restart")
        }
        if new.socket.mode != old.socket.mode || new.socket.maxClients != old.socket.maxClients {
            server.update(mode: new.socket.mode, maxClients: new.socket.maxClients)
            changed.append("socket")
        }

        let owm = new.openWeatherMap
        let endpoint = OpenWeatherMapClient.Endpoint(
            baseURL: owm.baseURL, apiKey: key, units: owm.units, lang: owm.lang, timeout: owm.timeout)
        let oldEndpoint = upstream.endpoint
        var refreshCities = false
        if endpoint != oldEndpoint {
            upstream.update(endpoint)
            changed.append("openweathermap")
            if endpoint.units != oldEndpoint.units || endpoint.lang != oldEndpoint.lang || endpoint.baseURL != oldEndpoint.baseURL {
                await lookups.clearCache()  // cached answers are in the old units or language
                refreshCities = true
            }
        }
        if new.lookupLimits != old.lookupLimits {
            await lookups.update(limits: new.lookupLimits)
            if !changed.contains("openweathermap") { changed.append("openweathermap") }
        }
        if new.refresh != old.refresh {
            refreshInterval.replace(with: new.refresh)
            changed.append("refresh")
        }
        if new.gpsd != old.gpsd {
            await location.update(new.locationSettings)
            reader.update(new.gpsdEndpoint)
            changed.append("gpsd")
        }
        if new.region != old.region {
            await regions.update(new.regionSettings)
            if new.region.debounce != old.region.debounce {
                logger.warning("reload: region.debounce changed; it takes effect after a restart")
            }
            changed.append("region")
        }
        if new.cities != old.cities {
            await engine.reconfigure(cities: new.cities)
            changed.append("cities")
            refreshCities = true
        }
        logger.notice("configuration reloaded; changed: \(changed.isEmpty ? "nothing" : changed.joined(separator: ", "))")
        notifier.notify(["STATUS=serving on \(old.socket.path)"])
        if refreshCities { await engine.refreshCities() }
    }
}
