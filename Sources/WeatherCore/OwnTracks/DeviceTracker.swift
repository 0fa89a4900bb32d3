#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The OwnTracks devices shown on the map (`source: "device"`): where each is, when its weather is
/// looked up again (only once it moved `distance` metres from where it was last looked up), and
/// when it leaves (`ttl` after its latest fix's own time). A plain state machine: events in,
/// decisions out, time injected; the service around it runs the lookups.
public struct DeviceTracker: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Metres a device must move before its weather is looked up again.
        public var distance: Double
        /// A device whose latest fix is older than this leaves.
        public var ttl: Duration

        public init(distance: Double, ttl: Duration) {
            self.distance = distance
            self.ttl = ttl
        }
    }

    /// One device as the map shows it.
    public struct Device: Sendable, Hashable {
        public var user: String
        public var device: String
        public var location: OwnTracksLocation
        /// Where its weather was last looked up, and that weather.
        public var weather: Weather?
        /// A lookup in flight, for this point.
        public var asking: Coordinate?

        init(user: String, device: String, location: OwnTracksLocation) {
            self.user = user
            self.device = device
            self.location = location
        }

        /// `device:USER/DEVICE`.
        public var id: String { "device:\(user)/\(device)" }
    }

    /// The weather looked up for a device, and the point it was looked up at.
    public struct Weather: Sendable, Hashable {
        public var at: Coordinate
        public var observation: WeatherObservation
    }

    /// What became of a fix.
    public enum Decision: Sendable, Equatable {
        /// Taken; look the weather up at this point (the device is new, or moved far enough).
        case lookUp(Coordinate)
        /// Taken; its weather stays (it moved less than the distance, or a lookup is in flight).
        case moved
        /// Not taken: older than `ttl`, or older than the device's latest fix.
        case tooOld
    }

    public var settings: Settings
    public private(set) var devices: [String: Device] = [:]

    public init(settings: Settings) {
        self.settings = settings
    }

    /// `ttl` in seconds.
    private var ttlSeconds: Double {
        Double(settings.ttl.components.seconds) + Double(settings.ttl.components.attoseconds) * 1e-18
    }

    private func expired(_ at: Date, now: Date) -> Bool {
        now.timeIntervalSince(at) >= ttlSeconds
    }

    /// A fix of `USER/DEVICE`.
    public mutating func receive(user: String, device name: String, _ location: OwnTracksLocation, now: Date) -> Decision {
        let id = "device:\(user)/\(name)"
        guard !expired(location.at, now: now) else { return .tooOld }
        var device = devices[id] ?? Device(user: user, device: name, location: location)
        if devices[id] != nil {
            guard location.at >= device.location.at else { return .tooOld }
            device.location = location
        }
        defer { devices[id] = device }
        guard device.asking == nil else { return .moved }
        if let weather = device.weather, weather.at.distance(to: location.coordinate) < settings.distance { return .moved }
        device.asking = location.coordinate
        return .lookUp(location.coordinate)
    }

    /// The lookup asked for `id` at `point` answered; whether the device's feature changed (it may
    /// have left meanwhile).
    public mutating func answered(_ id: String, at point: Coordinate, _ observation: WeatherObservation) -> Bool {
        guard var device = devices[id], device.asking == point else { return false }
        device.asking = nil
        device.weather = Weather(at: point, observation: observation)
        devices[id] = device
        return true
    }

    /// The lookup asked for `id` failed: the device's next fix asks again.
    public mutating func failed(_ id: String, at point: Coordinate) {
        guard devices[id]?.asking == point else { return }
        devices[id]?.asking = nil
    }

    /// Drops the devices whose latest fix reached `ttl`; their ids.
    public mutating func expire(now: Date) -> [String] {
        let gone = devices.values.filter { expired($0.location.at, now: now) }.map(\.id).sorted()
        for id in gone { devices[id] = nil }
        return gone
    }

    /// When the next device leaves, if any is known.
    public var nextExpiry: Date? {
        devices.values.map(\.location.at).min().map { $0.addingTimeInterval(ttlSeconds) }
    }

    /// The features of the devices whose weather is known, by id.
    public var features: [WeatherFeature] {
        devices.values.sorted { $0.id < $1.id }.compactMap { device in
            guard let weather = device.weather else { return nil }
            var feature = WeatherFeature(observation: weather.observation, source: .device)
            feature.id = device.id
            feature.coordinate = device.location.coordinate
            feature.device = DeviceSummary(
                user: device.user, device: device.device, trackerID: device.location.trackerID,
                horizontalError: device.location.accuracy, at: device.location.at, battery: device.location.battery)
            return feature
        }
    }
}

/// An OwnTracks device's feature's `properties.device`: `{"user","device","tid","horizontal_error","at","battery"}`.
public struct DeviceSummary: Sendable, Hashable {
    public var user: String
    public var device: String
    public var trackerID: String?
    public var horizontalError: Double?
    public var at: Date
    public var battery: Int?

    public init(user: String, device: String, trackerID: String?, horizontalError: Double?, at: Date, battery: Int?) {
        self.user = user
        self.device = device
        self.trackerID = trackerID
        self.horizontalError = horizontalError
        self.at = at
        self.battery = battery
    }

    public var json: JSONValue {
        .object([
            "user": .string(user), "device": .string(device), "tid": .string(trackerID), "horizontal_error": .number(horizontalError),
            "at": .string(Timestamp.iso8601(at)), "battery": battery.map { .integer(Int64($0)) } ?? .null,
        ])
    }
}
