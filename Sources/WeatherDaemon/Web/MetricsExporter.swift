import CoreMetrics
import Prometheus

/// `GET /metrics`: the Prometheus text exposition (format 0.0.4) of the daemon's registry. Counters
/// and histograms come from the core through swift-metrics as events happen (upstream requests and
/// their durations, lookups by where the answer came from, gpsd fixes); the gauges are read from the
/// daemon's parts at each scrape, so they cost nothing between scrapes.
public final class MetricsExporter: Sendable {
    /// What the gauges show, read at a scrape.
    public struct Snapshot: Sendable {
        public var budgetUsed: Int
        public var unixClients: Int
        public var watchers: Int
        public var searchRunning: Bool
        public var overlaysSeq: Int
        public var gpsdConnected: Bool

        public init(budgetUsed: Int, unixClients: Int, watchers: Int, searchRunning: Bool, overlaysSeq: Int, gpsdConnected: Bool) {
            self.budgetUsed = budgetUsed
            self.unixClients = unixClients
            self.watchers = watchers
            self.searchRunning = searchRunning
            self.overlaysSeq = overlaysSeq
            self.gpsdConnected = gpsdConnected
        }
    }

    public let registry: PrometheusCollectorRegistry
    private let snapshot: @Sendable () async -> Snapshot
    private let budgetUsed, unixClients, webClients, watchers, searchRunning, overlaysSeq, gpsdConnected: Prometheus.Gauge

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
        // The event series exist from the start, at zero, so every scrape shows them. No help text:
        // the core's counters come through the metrics factory, which gives none, and the registry
        // wants one help text per name.
        for result in ["cache", "shared", "upstream"] {
            _ = registry.makeCounter(
                descriptor: MetricNameDescriptor(namespace: "weatherd", metricName: "lookups", unitName: "total", helpText: ""),
                labels: [("result", result)])
        }
        for accepted in ["true", "false"] {
            _ = registry.makeCounter(
                descriptor: MetricNameDescriptor(namespace: "weatherd", metricName: "gps_fixes", unitName: "total", helpText: ""),
                labels: [("accepted", accepted)])
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
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}

extension MetricsExporter {
    /// Makes a Prometheus registry the process's swift-metrics backend and returns it. Once per
    /// process (weatherd's main), before anything records a metric.
    public static func bootstrapProcessMetrics() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }
}
