#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads the NWS API's answers (api.weather.gov, GeoJSON): the active alerts at a point
/// (`/alerts/active?point=LAT,LON`, a FeatureCollection of alerts with CAP properties) and a zone
/// (`/zones/forecast/{id}`, a Feature with its geometry).
public enum NWSAlertsResponse {
    /// The provider name alerts carry.
    public static let provider = AlertProviderName.nws.rawValue

    /// The alerts of an answer, most severe first: only `status: Actual` (not exercises, tests or
    /// drafts) and not cancellations. An alert without an identifier or event is left out.
    /// - Throws: `unavailable` when the body is not a FeatureCollection.
    public static func alerts(_ bytes: [UInt8]) throws(UpstreamError) -> [Alert] {
        guard let json = try? JSONValue.parse(bytes), json["type"]?.stringValue == "FeatureCollection",
            let features = json["features"]?.arrayValue
        else { throw .unavailable("the NWS sent an answer that is not an alert collection") }
        return Alert.ordered(features.compactMap(alert))
    }

    /// One feature of the collection as an alert; nil when it is not an actual alert in force.
    static func alert(_ feature: JSONValue) -> Alert? {
        guard let properties = feature["properties"]?.objectValue,
            properties["status"]?.stringValue == "Actual",
            properties["messageType"]?.stringValue != "Cancel",
            let id = (properties["id"] ?? feature["id"])?.stringValue, !id.isEmpty,
            let event = properties["event"]?.stringValue
        else { return nil }
        func text(_ name: String) -> String? {
            properties[name]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        }
        func time(_ name: String) -> Date? { text(name).flatMap(Timestamp.parseRFC3339) }
        return Alert(
            id: id, event: event, severity: AlertSeverity(cap: text("severity")), urgency: text("urgency"),
            certainty: text("certainty"), headline: text("headline"), description: text("description"),
            instruction: text("instruction"), onset: time("onset") ?? time("effective"), ends: time("ends"),
            expires: time("expires"), sender: text("senderName") ?? text("sender"), provider: provider,
            area: AlertArea(geoJSON: feature["geometry"]),
            zones: properties["affectedZones"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    /// A zone's shape; nil when the zone has no geometry.
    /// - Throws: `unavailable` when the body is not a GeoJSON Feature.
    public static func zoneArea(_ bytes: [UInt8]) throws(UpstreamError) -> AlertArea? {
        guard let json = try? JSONValue.parse(bytes), json["type"]?.stringValue == "Feature" else {
            throw .unavailable("the NWS sent a zone that is not a GeoJSON Feature")
        }
        return AlertArea(geoJSON: json["geometry"])
    }
}
