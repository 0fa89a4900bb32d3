/// The weather series shown on `/metrics`, from one scrape to the next: which to set, and which to
/// drop because their city left the list (or its labels changed: another provider, another name).
/// Two scrapes may read the engine in one order and apply their samples in the other: samples older
/// than those applied (by the overlays' `seq` they were read with) change nothing. Pure: the exporter
/// applies the update to its registry.
public struct WeatherSeriesSet: Sendable {
    /// What a scrape changes.
    public struct Update: Sendable, Equatable {
        /// The series to set (new or not), with their values now.
        public var set: [WeatherSeries]
        /// The series shown until now that are gone.
        public var drop: [WeatherSeries.Key]
    }

    private var shown: Set<WeatherSeries.Key> = []
    private var version = Int.min

    public init() {}

    /// The series shown now.
    public var keys: Set<WeatherSeries.Key> { shown }

    /// The samples now, read with the overlays' `seq` `version`: all of them are set; those shown
    /// before and not among them are dropped. Samples of an older version change nothing.
    public mutating func update(_ samples: [WeatherSeries], version: Int) -> Update {
        guard version >= self.version else { return Update(set: [], drop: []) }
        self.version = version
        var now: Set<WeatherSeries.Key> = []
        var set: [WeatherSeries] = []
        for sample in samples where now.insert(sample.key).inserted { set.append(sample) }
        let drop = shown.subtracting(now).sorted {
            ($0.measure.name, $0.labels.id, $0.labels.scale ?? "") < ($1.measure.name, $1.labels.id, $1.labels.scale ?? "")
        }
        shown = now
        return Update(set: set, drop: drop)
    }
}
