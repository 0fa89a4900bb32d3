import CoreMetrics
import Prometheus

/// The process's swift-metrics backend: swift-prometheus's factory, which registers what the core
/// records, with the help text of each of weatherd's event series (that factory gives none, and
/// `promtool check metrics` wants one for every series).
struct DescribedMetricsFactory: MetricsFactory {
    /// The help texts of the series the core records through swift-metrics, by name.
    static let helpTexts: [String: String] = [
        "weatherd_upstream_requests_total": "Requests sent to the weather providers, by endpoint and outcome",
        "weatherd_upstream_request_duration_seconds": "How long a weather provider took to answer a request, in seconds",
        "weatherd_lookups_total": "Weather lookups, by where the answer came from (cache, shared in flight, upstream)",
        "weatherd_gps_fixes_total": "Fixes received from gpsd, by whether they were accepted",
        "weatherd_location_fixes_total": "Location fixes of each kind of source, by whether they became the fused location",
    ]

    let prometheus: PrometheusMetricsFactory

    /// The name and help text of `label`, when it is one of the series described.
    static func descriptor(_ label: String) -> MetricNameDescriptor? {
        helpTexts[label].map { MetricNameDescriptor(metricName: label, unitName: "", helpText: $0) }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        guard let descriptor = Self.descriptor(label) else { return prometheus.makeCounter(label: label, dimensions: dimensions) }
        return prometheus.registry.makeCounter(descriptor: descriptor, labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        guard let descriptor = Self.descriptor(label) else {
            return prometheus.makeFloatingPointCounter(label: label, dimensions: dimensions)
        }
        return prometheus.registry.makeCounter(descriptor: descriptor, labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        prometheus.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        prometheus.makeMeter(label: label, dimensions: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        guard let descriptor = Self.descriptor(label) else { return prometheus.makeTimer(label: label, dimensions: dimensions) }
        return prometheus.registry.makeDurationHistogram(
            descriptor: descriptor, labels: dimensions,
            buckets: prometheus.durationHistogramBuckets[label] ?? prometheus.defaultDurationHistogramBuckets)
    }

    func destroyCounter(_ handler: any CounterHandler) { prometheus.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { prometheus.destroyFloatingPointCounter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { prometheus.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { prometheus.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { prometheus.destroyTimer(handler) }
}
