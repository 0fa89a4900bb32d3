/// The `[owntracks]` table: phones and vehicles running the OwnTracks app.
public struct OwnTracksConfig: Sendable, Equatable {
    /// `mqtt_topics`: subscription filters on the `[mqtt]` connection, like `"owntracks/+/+"`;
    /// the last two levels of a topic are `USER/DEVICE`.
    public var mqttTopics: [String]
    /// `http`: `POST /owntracks` on the web listener (the app's HTTP mode).
    public var http: Bool
    /// `follow`: the device, `USER/DEVICE`, whose fixes are "here" (a source of the fused location); "" = none.
    public var follow: String
    /// `devices`: every device seen is a feature with the weather where it is.
    public var devices: Bool
    /// `device_distance`: metres a device must move before its weather is looked up again.
    public var deviceDistance: Double
    /// `device_ttl`: a device without a fix for this long (counted from its `tst`) leaves the overlays.
    public var deviceTTL: Duration
    /// `secret_file`: a file holding the app's encryption key; "" = none (see ``secret``).
    public var secretFile: String
    /// Not a key: the encryption key found, first found wins: the systemd credential
    /// `$CREDENTIALS_DIRECTORY/owntracks-secret`, then `secret_file`
    /// (``ConfigLoader/resolveOwnTracksSecret(_:file:environment:readFile:)``).
    public var secret: Secret?

    public init(
        mqttTopics: [String] = [], http: Bool = false, follow: String = "", devices: Bool = true, deviceDistance: Double = 1000,
        deviceTTL: Duration = .seconds(6 * 3600), secretFile: String = "", secret: Secret? = nil
    ) {
        self.mqttTopics = mqttTopics
        self.http = http
        self.follow = follow
        self.devices = devices
        self.deviceDistance = deviceDistance
        self.deviceTTL = deviceTTL
        self.secretFile = secretFile
        self.secret = secret
    }

    /// Whether any OwnTracks input is on (MQTT topics or HTTP mode).
    public var enabled: Bool { !mqttTopics.isEmpty || http }
}
