import Synchronization
import WeatherCore

/// The JSON text of recently written features, by id: the text of a feature that is the same as
/// one written before is not made again. One for the daemon, in its `NotificationHub`: a search's
/// reply and the overlays notification that follows it carry the same feature, and a cached
/// search answers the same feature each time.
final class FeatureTexts: Sendable {
    /// Features kept; when full, all are dropped (a searched city is cached upstream for minutes,
    /// so a busy daemon keeps the texts of the cities asked for now).
    static let capacity = 256
    private let texts = Mutex<[String: (feature: WeatherFeature, text: String)]>([:])

    /// `feature.json.serialized`, kept.
    func text(of feature: WeatherFeature) -> String {
        if let kept = texts.withLock({ $0[feature.id] }), kept.feature == feature {
            // An equal feature made apart: keep this one, whose observation the next ones of the
            // same cached answer share (see `isSame(as:)`), so they are not compared field by field.
            if !kept.feature.observation.isSame(as: feature.observation) {
                texts.withLock { $0[feature.id] = (feature, kept.text) }
            }
            return kept.text
        }
        let text = feature.json.serialized
        texts.withLock { texts in
            if texts.count >= Self.capacity { texts.removeAll(keepingCapacity: true) }
            texts[feature.id] = (feature, text)
        }
        return text
    }
}

/// The JSON text of the value written last: made again only when another value is written (a
/// client that polls `state` gets the same state most times).
final class LatestText<Value: Sendable & Equatable>: Sendable {
    private let kept = Mutex<(value: Value, text: String)?>(nil)
    private let encode: @Sendable (Value) -> String

    init(_ encode: @escaping @Sendable (Value) -> String) {
        self.encode = encode
    }

    /// `encode(value)`, or the text kept when `value` is the one it was made of.
    func text(of value: Value) -> String {
        if let kept = kept.withLock({ $0 }), kept.value == value { return kept.text }
        let text = encode(value)
        kept.withLock { $0 = (value, text) }
        return text
    }
}
