extension SearchEngine {
    /// Takes in what the alert service knows: the features at those places carry their alerts and
    /// the alert areas join the overlays (one overlays change, only when something differs; like a
    /// watched city's, it never moves the map).
    public func updateAlerts(_ view: AlertView) {
        guard view != alertView else { return }
        alertView = view
        publishOverlays(focus: nil, onlyIfChanged: true)
    }

    /// `feature` with the alerts known at its place.
    public func withAlerts(_ feature: WeatherFeature) -> WeatherFeature {
        alertView.annotated(feature)
    }
}
