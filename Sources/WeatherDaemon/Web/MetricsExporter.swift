import CoreMetrics
import Prometheus
import Synchronization
import WeatherCore

/// `GET /metrics`: the Prometheus text exposition (format 0.0.4) of the daemon's registry. Counters
/// and histograms come from the core through swift-metrics as events happen (upstream requests and
/// their durations, lookups by where the answer came from, gpsd fixes); the gauges are read from the
/// daemon's parts at each scrape, so they cost nothing between scrapes. So are the weather series
/// of the watched cities: a city gone since the last scrape has its series unregistered.
public final class MetricsExporter: Sendable {
    /// What the gauges show, read at a scrape.
    public struct Snapshot: Sendable {
        public var budgetUsed: Int
        public var unixClients: Int
        public var watchers: Int
        public var searchRunning: Bool
        public var overlaysSeq: Int
        public var gpsdConnected: Bool
        /// The weather series of the watched cities, and the overlays' `seq` they were read with.
        public var weather: (version: Int, samples: [WeatherSeries])

        public init(
            budgetUsed: Int, unixClients: Int, watchers: Int, searchRunning: Bool, overlaysSeq: Int, gpsdConnected: Bool,
            weather: (version: Int, samples: [WeatherSeries]) = (0, [])
        ) {
            self.budgetUsed = budgetUsed
            self.unixClients = unixClients
            self.watchers = watchers
            self.searchRunning = searchRunning
            self.overlaysSeq = overlaysSeq
            self.gpsdConnected = gpsdConnected
            self.weather = weather
        }
    }

    public let registry: PrometheusCollectorRegistry
    private let snapshot: @Sendable () async -> Snapshot
    private let budgetUsed, unixClients, webClients, watchers, searchRunning, overlaysSeq, gpsdConnected: Prometheus.Gauge
    /// The weather series shown, and their gauges; the lock also keeps two scrapes from emitting
    /// while the other changes the series.
    private let weather = Mutex<(shown: WeatherSeriesSet, gauges: [WeatherSeries.Key: Prometheus.Gauge])>((WeatherSeriesSet(), [:]))

    /// - Parameters:
    ///   - registry: the registry the process bootstrapped swift-metrics with.
    ///   - snapshot: reads the gauges' values from the daemon's parts.
    public init(registry: PrometheusCollectorRegistry, snapshot: @escaping @Sendable () async -> Snapshot) {
        self.registry = registry
        self.snapshot = snapshot
        func gauge(_ name: String, _ unit: String, _ help: String, _ labels: [(String, String)] = []) -> Prometheus.Gauge {
            registry.makeGauge(
                descriptor: MetricNameDescriptor(namespace: "weatherd", metricName: name, unitName: unit, helpText: help), labels: labels)
        }
        budgetUsed = gauge("budget", "used", "OpenWeatherMap requests sent in the last minute")
        unixClients = gauge("clients", "", "Clients connected", [("transport", "unix")])
        webClients = gauge("clients", "", "Clients connected", [("transport", "web")])
        watchers = gauge("watchers", "", "Clients watching notifications")
        searchRunning = gauge("search", "running", "1 while a search runs (state.running)")
        overlaysSeq = gauge("overlays", "seq", "The seq of the current overlays")
        gpsdConnected = gauge("gpsd", "connected", "1 while gpsd answers")
        // The event series exist from the start, at zero, so every scrape shows them, with the help
        // text the core's counters get through the metrics factory (one help text per name).
        if let lookups = DescribedMetricsFactory.descriptor("weatherd_lookups_total") {
            for result in ["cache", "shared", "upstream"] { _ = registry.makeCounter(descriptor: lookups, labels: [("result", result)]) }
        }
        if let fixes = DescribedMetricsFactory.descriptor("weatherd_gps_fixes_total") {
            for accepted in ["true", "false"] { _ = registry.makeCounter(descriptor: fixes, labels: [("accepted", accepted)]) }
        }
        if let fixes = DescribedMetricsFactory.descriptor("weatherd_location_fixes_total") {
            for source in LocationSourceKind.allCases {
                for accepted in ["true", "false"] {
                    _ = registry.makeCounter(descriptor: fixes, labels: [("source", source.rawValue), ("accepted", accepted)])
                }
            }
        }
    }

    /// The exposition, with the gauges read now (`webClients` from the web listener answering).
    public func exposition(webClients: Int) async -> String {
        let now = await snapshot()
        budgetUsed.set(Int64(now.budgetUsed))
        unixClients.set(Int64(now.unixClients))
        self.webClients.set(Int64(webClients))
        watchers.set(Int64(now.watchers))
        searchRunning.set(Int64(now.searchRunning ? 1 : 0))
        overlaysSeq.set(Int64(now.overlaysSeq))
        gpsdConnected.set(Int64(now.gpsdConnected ? 1 : 0))
        var buffer: [UInt8] = []
        weather.withLock { weather in
            let update = weather.shown.update(now.weather.samples, version: now.weather.version)
            for key in update.drop {
                if let gauge = weather.gauges.removeValue(forKey: key) { registry.unregisterGauge(gauge) }
            }
            for sample in update.set {
                let gauge =
                    weather.gauges[sample.key]
                    ?? registry.makeGauge(
                        descriptor: MetricNameDescriptor(metricName: sample.measure.name, unitName: "", helpText: sample.measure.help),
                        labels: sample.labels.pairs)
                weather.gauges[sample.key] = gauge
                gauge.set(sample.value)
            }
            registry.emit(into: &buffer)
        }
        return String(decoding: buffer, as: UTF8.self)
    }
}

extension MetricsExporter {
    /// Makes a Prometheus registry the process's swift-metrics backend and returns it. Once per
    /// process (weatherd's main), before anything records a metric.
    public static func bootstrapProcessMetrics() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(DescribedMetricsFactory(prometheus: PrometheusMetricsFactory(registry: registry)))
        return registry
    }
}
