/// What the alert service knows, as the search engine shows it: each tracked cell's alerts (put
/// into the features at those places) and the areas of the alerts in force (overlay features).
public struct AlertView: Sendable, Hashable {
    /// Each cell's alerts; a cell not here is not known (or outside every provider's area).
    public var cells: [AlertCell: AlertRefreshState.CellAlerts]
    /// The alert areas, most severe first.
    public var areas: [AlertAreaFeature]

    public init(cells: [AlertCell: AlertRefreshState.CellAlerts] = [:], areas: [AlertAreaFeature] = []) {
        self.cells = cells
        self.areas = areas
    }

    /// `feature` with the alerts of its cell (nil and not stale when they are not known).
    public func annotated(_ feature: WeatherFeature) -> WeatherFeature {
        var feature = feature
        let known = cells.isEmpty ? nil : cells[AlertCell(feature.coordinate)]
        feature.alerts = known?.alerts
        feature.alertsStale = known?.stale ?? false
        return feature
    }

    /// Each feature with the alerts of its cell.
    public func annotated(_ features: [WeatherFeature]) -> [WeatherFeature] {
        guard !cells.isEmpty else { return features }
        return features.map(annotated)
    }
}
