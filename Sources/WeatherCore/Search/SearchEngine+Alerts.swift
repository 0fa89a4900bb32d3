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

    /// Puts a data service's entry into `state.services` (replacing its earlier one, by name);
    /// a change is published.
    public func updateService(_ status: ServiceStatus) {
        var next = currentState
        if let index = next.services.firstIndex(where: { $0.name == status.name }) {
            next.services[index] = status
        } else {
            next.services.append(status)
        }
        commit(next)
    }
}
