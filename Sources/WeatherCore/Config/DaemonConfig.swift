/// The daemon's configuration: the contents of `weatherd.toml` after checking.
///
/// Every property has the default documented in the product contract; `DaemonConfig()` is the
/// configuration of an empty file. Build one from TOML text with ``ConfigLoader/parse(_:file:)`` (its
/// ``LoadedConfig/config``).
public struct DaemonConfig: Sendable, Equatable {
    /// Watched cities (`cities`): looked up at start and every ``refresh``.
    public var cities: [String]
    /// How often the watched cities are looked up again (`refresh`).
    public var refresh: Duration
    /// The `[weather]` table: what every weather provider shares.
    public var weather: WeatherConfig
    /// The `[openweathermap]` table: the OpenWeatherMap provider.
    public var openWeatherMap: OpenWeatherMapConfig
    /// The `[open-meteo]` table: the Open-Meteo provider.
    public var openMeteo: OpenMeteoConfig
    /// The `[socket]` table: the Unix domain socket clients connect to.
    public var socket: SocketConfig
    /// The `[gpsd]` table: the gpsd receiver, a source of location.
    public var gpsd: GPSDConfig
    /// The `[location]` table: the fused location of every source.
    public var location: LocationConfig
    /// The `[air-quality]` table: air quality from Open-Meteo.
    public var airQuality: AirQualityConfig
    /// The `[owntracks]` table: phones and vehicles running the OwnTracks app.
    public var ownTracks: OwnTracksConfig
    /// The `[geoclue]` table: GeoClue2, a source of location.
    public var geoclue: GeoClueConfig
    /// The `[alerts]` table: official weather warnings.
    public var alerts: AlertsConfig
    /// The `[region]` table: map region searches.
    public var region: RegionConfig
    /// The `[state]` table: durable state.
    public var state: StateConfig
    /// The `[web]` table: the HTTP listener.
    public var web: WebConfig
    /// The `[mqtt]` table: publishing to a broker.
    public var mqtt: MQTTConfig

    /// The default cities: `["Seoul,KR", "London,GB"]`.
    public static let defaultCities = ["Seoul,KR", "London,GB"]

    /// The configuration with every value at its default.
    public init() {
        self.init(cities: Self.defaultCities)
    }

    /// A configuration; every value not given has its default.
    public init(
        cities: [String] = DaemonConfig.defaultCities,
        refresh: Duration = .seconds(600),
        weather: WeatherConfig = WeatherConfig(),
        openWeatherMap: OpenWeatherMapConfig = OpenWeatherMapConfig(),
        openMeteo: OpenMeteoConfig = OpenMeteoConfig(),
        socket: SocketConfig = SocketConfig(),
        gpsd: GPSDConfig = GPSDConfig(),
        location: LocationConfig = LocationConfig(),
        airQuality: AirQualityConfig = AirQualityConfig(),
        ownTracks: OwnTracksConfig = OwnTracksConfig(),
        geoclue: GeoClueConfig = GeoClueConfig(),
        alerts: AlertsConfig = AlertsConfig(),
        region: RegionConfig = RegionConfig(),
        state: StateConfig = StateConfig(),
        web: WebConfig = WebConfig(),
        mqtt: MQTTConfig = MQTTConfig()
    ) {
        self.cities = cities
        self.refresh = refresh
        self.weather = weather
        self.openWeatherMap = openWeatherMap
        self.openMeteo = openMeteo
        self.socket = socket
        self.gpsd = gpsd
        self.location = location
        self.airQuality = airQuality
        self.ownTracks = ownTracks
        self.geoclue = geoclue
        self.alerts = alerts
        self.region = region
        self.state = state
        self.web = web
        self.mqtt = mqtt
    }
}
