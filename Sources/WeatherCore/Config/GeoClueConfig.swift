/// The `[geoclue]` table: the desktop's location service, GeoClue2, over the system D-Bus.
public struct GeoClueConfig: Sendable, Equatable {
    /// `enabled`: whether weatherd asks GeoClue for its location at all.
    public var enabled: Bool
    /// `accuracy`: the accuracy level weatherd asks GeoClue for.
    public var accuracy: GeoClueAccuracy
    /// `desktop_id`: the desktop id weatherd gives GeoClue (its section in `/etc/geoclue/geoclue.conf`,
    /// and the name it registers its agent under).
    public var desktopID: String
    /// `max_horizontal_error`: metres; a GeoClue fix with a larger error is ignored.
    public var maxHorizontalError: Double

    /// The `[geoclue]` table; every value not given has its default.
    public init(
        enabled: Bool = false, accuracy: GeoClueAccuracy = .city, desktopID: String = "weatherd", maxHorizontalError: Double = 25_000
    ) {
        self.enabled = enabled
        self.accuracy = accuracy
        self.desktopID = desktopID
        self.maxHorizontalError = maxHorizontalError
    }
}

/// A GeoClue2 accuracy level (`geoclue.accuracy`), as GeoClue's `RequestedAccuracyLevel` numbers it.
public enum GeoClueAccuracy: String, Sendable, CaseIterable {
    case country
    case city
    case street
    case exact

    /// GeoClue's `GClueAccuracyLevel`: country 1, city 4, street 6, exact 8.
    public var level: UInt32 {
        switch self {
        case .country: 1
        case .city: 4
        case .street: 6
        case .exact: 8
        }
    }
}
