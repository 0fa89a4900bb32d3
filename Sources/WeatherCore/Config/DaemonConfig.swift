/// The daemon's configuration: the contents of `weatherd.toml` after checking.
///
/// Every property has the default documented in the product contract; `DaemonConfig()` is the
/// configuration of an empty file. Build one from TOML text with ``ConfigLoader/parse(_:file:)``.
public struct DaemonConfig: Sendable, Equatable {
    /// Watched cities (`cities`): looked up at start and every ``refresh``.
    public var cities: [String]
    /// How often the watched cities are looked up again (`refresh`).
    public var refresh: Duration
    /// The `[openweathermap]` table: the upstream API.
    public var openWeatherMap: OpenWeatherMapConfig
    /// The `[socket]` table: the Unix domain socket clients connect to.
    public var socket: SocketConfig
    /// The `[gpsd]` table: the location source.
    public var gpsd: GPSDConfig
    /// The `[region]` table: map region searches.
    public var region: RegionConfig
    /// The `[state]` table: durable state.
    public var state: StateConfig

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
        openWeatherMap: OpenWeatherMapConfig = OpenWeatherMapConfig(),
        socket: SocketConfig = SocketConfig(),
        gpsd: GPSDConfig = GPSDConfig(),
        region: RegionConfig = RegionConfig(),
        state: StateConfig = StateConfig()
    ) {
        self.cities = cities
        self.refresh = refresh
        self.openWeatherMap = openWeatherMap
        self.socket = socket
        self.gpsd = gpsd
        self.region = region
        self.state = state
    }
}

/// Units of the OpenWeatherMap results (`openweathermap.units`).
public enum Units: String, Sendable, CaseIterable {
    /// Kelvin, metres per second.
    case standard
    /// Degrees Celsius, metres per second.
    case metric
    /// Degrees Fahrenheit, miles per hour.
    case imperial
}

/// The `[openweathermap]` table.
public struct OpenWeatherMapConfig: Sendable, Equatable {
    /// `base_url`: requests go to `{baseURL}/data/2.5/weather`.
    public var baseURL: String
    /// `api_key_file`: a file holding the API key (third in the order of ``ConfigLoader/resolveAPIKey(_:file:environment:readFile:)``).
    public var apiKeyFile: String
    /// `api_key`: the API key written in the configuration itself (last in the order of resolution).
    public var apiKey: Secret?
    /// `units`: units of the results.
    public var units: Units
    /// `lang`: language of the condition descriptions.
    public var lang: String
    /// `timeout`: time limit of one HTTP request.
    public var timeout: Duration
    /// `requests_per_minute`: the request budget.
    public var requestsPerMinute: Int
    /// `cache_ttl`: how long a lookup result is reused; zero means no cache.
    public var cacheTTL: Duration

    /// The `[openweathermap]` table; every value not given has its default.
    public init(
        baseURL: String = "https://api.openweathermap.org",
        apiKeyFile: String = "/etc/weatherd/owm-api-key",
        apiKey: Secret? = nil,
        units: Units = .metric,
        lang: String = "en",
        timeout: Duration = .seconds(10),
        requestsPerMinute: Int = 60,
        cacheTTL: Duration = .seconds(600)
    ) {
        self.baseURL = baseURL
        self.apiKeyFile = apiKeyFile
        self.apiKey = apiKey
        self.units = units
        self.lang = lang
        self.timeout = timeout
        self.requestsPerMinute = requestsPerMinute
        self.cacheTTL = cacheTTL
    }
}

/// The `[socket]` table.
public struct SocketConfig: Sendable, Equatable {
    /// `path`: where the Unix domain socket is created.
    public var path: String
    /// `mode`: file mode of the socket (written in the file as an octal string like `"0660"`).
    public var mode: UInt32
    /// `max_clients`: connections served at once; one more is answered `busy` and closed.
    public var maxClients: Int

    /// The `[socket]` table; every value not given has its default.
    public init(path: String = "/run/weatherd/weatherd.sock", mode: UInt32 = 0o660, maxClients: Int = 256) {
        self.path = path
        self.mode = mode
        self.maxClients = maxClients
    }
}

/// The `[gpsd]` table.
public struct GPSDConfig: Sendable, Equatable {
    /// `enabled`: whether locations come from gpsd at all.
    public var enabled: Bool
    /// `host`: where gpsd listens.
    public var host: String
    /// `port`: gpsd's TCP port.
    public var port: Int
    /// `max_horizontal_error`: metres; fixes with a larger or unknown error are ignored.
    public var maxHorizontalError: Double
    /// `locate_timeout`: default time limit of `locate`.
    public var locateTimeout: Duration
    /// `follow`: every accepted fix that moved at least ``followDistance`` starts a search.
    public var follow: Bool
    /// `follow_distance`: metres, see ``follow``.
    public var followDistance: Double

    /// The `[gpsd]` table; every value not given has its default.
    public init(
        enabled: Bool = true,
        host: String = "127.0.0.1",
        port: Int = 2947,
        maxHorizontalError: Double = 100,
        locateTimeout: Duration = .seconds(30),
        follow: Bool = false,
        followDistance: Double = 1000
    ) {
        self.enabled = enabled
        self.host = host
        self.port = port
        self.maxHorizontalError = maxHorizontalError
        self.locateTimeout = locateTimeout
        self.follow = follow
        self.followDistance = followDistance
    }
}

/// The `[region]` table.
public struct RegionConfig: Sendable, Equatable {
    /// `debounce`: quiet time after the last region event before its search starts.
    public var debounce: Duration
    /// `around`: grid radius; 0 = the centre only, 1 = 3×3 points, 2 = 5×5 points.
    public var around: Int
    /// `concurrency`: lookups of one grid in flight at once.
    public var concurrency: Int

    /// The `[region]` table; every value not given has its default.
    public init(debounce: Duration = .milliseconds(250), around: Int = 1, concurrency: Int = 4) {
        self.debounce = debounce
        self.around = around
        self.concurrency = concurrency
    }
}

/// The `[state]` table.
public struct StateConfig: Sendable, Equatable {
    /// `directory`: where the durable state (added and removed cities) is kept.
    public var directory: String

    /// The `[state]` table; every value not given has its default.
    public init(directory: String = "/var/lib/weatherd") {
        self.directory = directory
    }
}
