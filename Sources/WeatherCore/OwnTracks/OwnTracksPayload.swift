#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A position the OwnTracks app reported (`_type: "location"`): `lat`, `lon`, `tst`, and where given
/// `acc`, `tid` and `batt`.
public struct OwnTracksLocation: Sendable, Hashable {
    public var coordinate: Coordinate
    /// `acc`: metres; nil when the app sent none (an unknown accuracy).
    public var accuracy: Double?
    /// `tst`: when the fix was taken.
    public var at: Date
    /// `tid`: the app's two-letter tracker id.
    public var trackerID: String?
    /// `batt`: the device's battery, percent.
    public var battery: Int?

    public init(coordinate: Coordinate, accuracy: Double? = nil, at: Date, trackerID: String? = nil, battery: Int? = nil) {
        self.coordinate = coordinate
        self.accuracy = accuracy
        self.at = at
        self.trackerID = trackerID
        self.battery = battery
    }
}

/// Why an OwnTracks payload was dropped (said in the warning; the payload itself never is).
public enum OwnTracksDropReason: Error, Sendable, Hashable, CustomStringConvertible {
    /// Larger than ``OwnTracksPayload/maxBytes``.
    case tooLarge(bytes: Int)
    /// Not JSON text (binary, truncated, …).
    case notJSON
    /// JSON, but not an object with a string `_type`.
    case noType
    /// A location without this member, or with one that is not a number in range.
    case missing(String)
    case invalid(String)
    /// `_type: "encrypted"` whose `data` is not a base64 string.
    case badBase64
    /// `_type: "encrypted"` and no key (`owntracks.secret_file`).
    case noSecret
    /// The key does not open it (another key, or damaged).
    case cannotDecrypt
    /// An encrypted payload that held another encrypted payload.
    case nestedEncryption

    public var description: String {
        switch self {
        case .tooLarge: "more than \(OwnTracksPayload.maxBytes) bytes"
        case .notJSON: "not JSON"
        case .noType: "not a JSON object with a string _type"
        case .missing(let member): "a location without \(member)"
        case .invalid(let member): "a location whose \(member) is not a number in range"
        case .badBase64: "an encrypted payload whose data is not base64"
        case .noSecret: "an encrypted payload, and no key is configured (owntracks.secret_file)"
        case .cannotDecrypt: "an encrypted payload the configured key does not open (another key, or damaged)"
        case .nestedEncryption: "an encrypted payload inside an encrypted payload"
        }
    }
}

/// Opens the box of an encrypted payload (libsodium's secretbox, the app's scheme: a 24-byte nonce,
/// then the ciphertext): the plaintext, or nil when the key does not open it. Implemented at the
/// edge; the core never does cryptography.
public protocol OwnTracksOpener: Sendable {
    func open(_ box: [UInt8]) -> [UInt8]?
}

/// The OwnTracks app's JSON payloads (owntracks.org/booklet/tech/json), as weatherd takes them.
public enum OwnTracksPayload {
    /// What a payload is.
    public enum Message: Sendable, Hashable {
        case location(OwnTracksLocation)
        /// Another `_type` (`transition`, `waypoint`, `lwt`, …): accepted and ignored.
        case ignored(type: String)
    }

    /// The largest payload read (the app's are a few hundred bytes).
    public static let maxBytes = 64 * 1024

    /// Reads one payload; `_type: "encrypted"` is opened with `opener` (nil: no key).
    public static func parse(_ bytes: some Collection<UInt8>, opener: (any OwnTracksOpener)?) -> Result<Message, OwnTracksDropReason> {
        parse(bytes, opener: opener, nested: false)
    }

    private static func parse(
        _ bytes: some Collection<UInt8>, opener: (any OwnTracksOpener)?, nested: Bool
    ) -> Result<Message, OwnTracksDropReason> {
        guard bytes.count <= maxBytes else { return .failure(.tooLarge(bytes: bytes.count)) }
        guard let value = try? JSONValue.parse(bytes) else { return .failure(.notJSON) }
        guard let type = value["_type"]?.stringValue else { return .failure(.noType) }
        switch type {
        case "location":
            return location(value).map { .location($0) }
        case "encrypted":
            if nested { return .failure(.nestedEncryption) }
            guard let text = value["data"]?.stringValue, let box = Data(base64Encoded: text) else { return .failure(.badBase64) }
            guard let opener else { return .failure(.noSecret) }
            guard let plain = opener.open(Array(box)) else { return .failure(.cannotDecrypt) }
            return parse(plain, opener: nil, nested: true)
        default:
            return .success(.ignored(type: type))
        }
    }

    private static func location(_ value: JSONValue) -> Result<OwnTracksLocation, OwnTracksDropReason> {
        for member in ["lat", "lon", "tst"] where value[member] == nil || value[member]?.isNull == true {
            return .failure(.missing(member))
        }
        guard let lat = value["lat"]?.doubleValue, lat.isFinite, (-90...90).contains(lat) else { return .failure(.invalid("lat")) }
        guard let lon = value["lon"]?.doubleValue, lon.isFinite, (-180...180).contains(lon) else { return .failure(.invalid("lon")) }
        // Seconds since 1970; before 2000 or past 2200 is no phone's clock.
        guard let tst = value["tst"]?.doubleValue, (946_684_800...7_258_118_400).contains(tst) else { return .failure(.invalid("tst")) }
        let accuracy = value["acc"]?.doubleValue.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let battery = value["batt"]?.intValue.flatMap { (0...100).contains($0) ? $0 : nil }
        let trackerID = value["tid"]?.stringValue.flatMap { $0.isEmpty || $0.count > 16 ? nil : $0 }
        return .success(
            OwnTracksLocation(
                coordinate: Coordinate(lat: lat, lon: lon), accuracy: accuracy, at: Date(timeIntervalSince1970: tst),
                trackerID: trackerID, battery: battery))
    }
}

/// The key the OwnTracks apps derive from the secret a user types: its UTF-8 bytes copied into 32
/// zero bytes (a longer secret is cut at 32 bytes).
public enum OwnTracksKey {
    public static let length = 32

    public static func derive(_ secret: Secret) -> [UInt8] {
        var key = Array(secret.revealed.utf8.prefix(length))
        key += [UInt8](repeating: 0, count: length - key.count)
        return key
    }
}
