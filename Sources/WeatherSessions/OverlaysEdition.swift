import Synchronization
import WeatherCore

/// One published overlays collection with its notification lines, each encoded once, when a
/// watcher's writer first asks for it, and shared by every watcher: the full `overlays` line, and
/// the `overlays.diff` line from each earlier collection that watchers last received (1,000 diff
/// watchers that all received the previous collection cost one diff).
///
/// Each feature is encoded once; both kinds of line are put together from those texts.
public final class OverlaysEdition: Sendable {
    public let overlays: Overlays

    private struct Encoded {
        /// The JSON text of each feature, in the order of `overlays.features`.
        var features: [String]?
        /// The collection's JSON text (a `FeatureCollection`), and the notification line that carries it.
        var collection: String?
        var full: String?
        /// The line for a watcher whose last collection had this `seq`: a diff, or the full line
        /// when that is not longer.
        var fromBase: [Int: String] = [:]
        /// The texts of the collection published before this one, by feature id, for the features
        /// that did not change (most of them: a search changes the focus and one feature): taken
        /// when this edition is made, if that one was encoded, and dropped once this one is.
        var earlier: [String: (feature: WeatherFeature, text: String)]?
    }

    private let encoded: Mutex<Encoded>
    private let texts: FeatureTexts?

    /// - Parameters:
    ///   - previous: the collection published before, whose feature texts this one reuses for
    ///     features that are the same.
    ///   - texts: the texts of features written lately (a search's reply carries the feature that
    ///     becomes the focus), for the other features.
    init(_ overlays: Overlays, after previous: OverlaysEdition? = nil, texts: FeatureTexts? = nil) {
        self.overlays = overlays
        self.texts = texts
        encoded = Mutex(Encoded(earlier: previous?.featureTexts()))
    }

    /// The feature texts by id, if they were encoded.
    private func featureTexts() -> [String: (feature: WeatherFeature, text: String)]? {
        encoded.withLock { encoded in
            guard let texts = encoded.features else { return nil }
            var byID: [String: (feature: WeatherFeature, text: String)] = [:]
            byID.reserveCapacity(texts.count)
            for (feature, text) in zip(overlays.features, texts) where byID[feature.id] == nil {
                byID[feature.id] = (feature, text)
            }
            return byID
        }
    }

    /// The `overlays` notification: the whole collection.
    public var fullLine: String {
        encoded.withLock { Self.full(of: overlays, &$0, texts: texts) }
    }

    /// The collection's JSON text, as `overlays.json.serialized` writes it: the `result` of an
    /// `overlays` request, made once and with the features' kept texts.
    public var collectionText: String {
        encoded.withLock { Self.collection(of: overlays, &$0, texts: texts) }
    }

    /// What a diff watcher whose last collection was `base` gets: the `overlays.diff` notification
    /// from `base` to this collection, or the full `overlays` notification when there is no base
    /// (the first after `watch`) or when the diff would not be shorter.
    public func line(after base: Overlays?) -> String {
        guard let base, base.seq < overlays.seq else { return fullLine }
        return encoded.withLock { encoded in
            if let line = encoded.fromBase[base.seq] { return line }
            let full = Self.full(of: overlays, &encoded, texts: texts)
            let diff = Self.diff(from: base, to: overlays, texts: encoded.features ?? [])
            let line = diff.utf8.count < full.utf8.count ? diff : full
            encoded.fromBase[base.seq] = line
            return line
        }
    }

    private static func full(of overlays: Overlays, _ encoded: inout Encoded, texts kept: FeatureTexts?) -> String {
        if let full = encoded.full { return full }
        let line = RPCMessage.notification(method: "overlays", text: collection(of: overlays, &encoded, texts: kept))
        encoded.full = line
        return line
    }

    private static func collection(of overlays: Overlays, _ encoded: inout Encoded, texts kept: FeatureTexts?) -> String {
        if let collection = encoded.collection { return collection }
        let earlier = encoded.earlier
        let texts =
            encoded.features
            ?? overlays.features.map { feature in
                if let same = earlier?[feature.id], same.feature == feature { return same.text }
                return kept?.text(of: feature) ?? feature.json.serialized
            }
        encoded.features = texts
        encoded.earlier = nil
        // The same text as overlays.json.serialized.
        var collection = #"{"type":"FeatureCollection","seq":"#
        collection += String(overlays.seq)
        collection += #","focus":"#
        collection += focusText(overlays.focus)
        collection += #","features":["#
        collection += (texts + overlays.areas.map(\.json.serialized)).joined(separator: ",")
        collection += "]}"
        encoded.collection = collection
        return collection
    }

    /// The `overlays.diff` line from `base` to `target`: features whose `id` is new, features whose
    /// content changed (whole), and the ids that left.
    private static func diff(from base: Overlays, to target: Overlays, texts: [String]) -> String {
        var old: [String: WeatherFeature] = [:]
        old.reserveCapacity(base.features.count)
        for feature in base.features where old[feature.id] == nil { old[feature.id] = feature }
        var added: [String] = []
        var changed: [String] = []
        var present = Set<String>()
        present.reserveCapacity(target.features.count)
        for (index, feature) in target.features.enumerated() {
            present.insert(feature.id)
            if let before = old[feature.id] {
                if before != feature { changed.append(texts[index]) }
            } else {
                added.append(texts[index])
            }
        }
        // The alert areas (a few): by id like the features.
        let oldAreas = Dictionary(base.areas.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for area in target.areas where present.insert(area.id).inserted {
            if let before = oldAreas[area.id] {
                if before != area { changed.append(area.json.serialized) }
            } else {
                added.append(area.json.serialized)
            }
        }
        var removed: [String] = []
        var seen = Set<String>()
        for id in base.features.map(\.id) + base.areas.map(\.id) where !present.contains(id) && seen.insert(id).inserted {
            removed.append(JSONValue.string(id).serialized)
        }
        var params = #"{"seq":"#
        params += String(target.seq)
        params += #","base":"#
        params += String(base.seq)
        params += #","focus":"#
        params += focusText(target.focus)
        params += #","added":["#
        params += added.joined(separator: ",")
        params += #"],"changed":["#
        params += changed.joined(separator: ",")
        params += #"],"removed":["#
        params += removed.joined(separator: ",")
        params += "]}"
        return RPCMessage.notification(method: "overlays.diff", text: params)
    }

    private static func focusText(_ focus: Coordinate?) -> String {
        (focus?.geoJSONPosition ?? .null).serialized
    }
}
