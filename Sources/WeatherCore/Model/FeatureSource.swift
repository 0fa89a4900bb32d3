/// Where a feature came from in the search stream (`properties.source`).
public enum FeatureSource: String, Sendable, Hashable, CaseIterable {
    /// A watched city of the configuration or `cities.add`.
    case city
    /// A `search` request.
    case text
    /// A gpsd fix.
    case location
    /// The centre of a map region.
    case region
    /// Another point of a region's grid.
    case around
    /// An OwnTracks device (`id` `device:USER/DEVICE`, `properties.device`).
    case device
}
