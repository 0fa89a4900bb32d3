/// An alert's area on the map: an overlay feature `alert:<id>` (`source: "alert"`) with its
/// Polygon or MultiPolygon. Its text is data for the page to show as text, never markup.
public struct AlertAreaFeature: Sendable, Hashable, JSONRepresentable {
    public var alert: Alert
    public var area: AlertArea

    public init(alert: Alert, area: AlertArea) {
        self.alert = alert
        self.area = area
    }

    public var id: String { alert.featureID }

    /// Properties `source`, `event`, `severity`, `headline`, `ends`, `provider`, and for the page's
    /// popup `onset` and `instruction`.
    public var json: JSONValue {
        let alertJSON = alert.json
        return .object([
            "type": "Feature", "id": .string(id), "geometry": area.json,
            "properties": .object([
                "source": "alert", "event": .string(alert.event), "severity": .string(alert.severity.rawValue),
                "headline": .string(alert.headline), "onset": alertJSON["onset"] ?? .null, "ends": alertJSON["ends"] ?? .null,
                "instruction": .string(alert.instruction), "provider": .string(alert.provider),
            ]),
        ])
    }
}
