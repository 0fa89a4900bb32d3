/// Which features the overlays hold, in which order: each background layer in turn (the watched
/// cities; more sources add their layers after them), then the focused layer (the latest interactive
/// input's result). A feature appears once, by `id`: the focused layer's wins, else the first.
enum OverlayMembership {
    /// The overlays' features of `background` layers, in order, and the `focused` one last.
    static func features(background: [[WeatherFeature]], focused: [WeatherFeature]) -> [WeatherFeature] {
        let layered = background.count == 1 ? background[0] : background.flatMap { $0 }
        return uniqueByID(layered, excluding: focused) + focused
    }

    /// `features` without repeated ids (the first is kept) and without those of `excluded`.
    static func uniqueByID(_ features: [WeatherFeature], excluding excluded: [WeatherFeature] = []) -> [WeatherFeature] {
        // A few features, as a rule: looking through them is cheaper than hashing their ids
        // into sets at every change (about a microsecond a search, measured).
        guard features.count + excluded.count > 32 else {
            var unique: [WeatherFeature] = []
            unique.reserveCapacity(features.count)
            for feature in features
            where !unique.contains(where: { $0.id == feature.id }) && !excluded.contains(where: { $0.id == feature.id }) {
                unique.append(feature)
            }
            return unique
        }
        var seen = Set(excluded.map(\.id))
        return features.filter { seen.insert($0.id).inserted }
    }
}
