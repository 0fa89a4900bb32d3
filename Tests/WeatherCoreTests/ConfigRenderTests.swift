import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: rendering")
struct ConfigRenderTests {
    /// A configuration with every value away from its default.
    static var changed: DaemonConfig {
        DaemonConfig(
            cities: ["Paris,FR", "Quote \"Town\"", "Back\\slash"],
            refresh: .milliseconds(1500),
            weather: WeatherConfig(
                providers: [.openMeteo, .openWeatherMap], units: .imperial, lang: "de", cacheTTL: .zero,
                geocodeTTL: .seconds(86_400 + 3600)),
            openWeatherMap: OpenWeatherMapConfig(
                baseURL: "http://127.0.0.1:8081", apiKeyFile: "/k", apiKey: Secret("s3cr3t-KEY"),
                timeout: .seconds(30), requestsPerMinute: 5),
            openMeteo: OpenMeteoConfig(
                baseURL: "http://127.0.0.1:8082/om", geocodingURL: "http://127.0.0.1:8083", apiKeyFile: "/etc/weatherd/om-key",
                timeout: .milliseconds(2500), requestsPerMinute: 6000, requestsPerDay: 10_000_000),
            socket: SocketConfig(path: "/tmp/w.sock", mode: 0o600, maxClients: 9),
            gpsd: GPSDConfig(enabled: false, host: "::1", port: 1),
            location: LocationConfig(
                maxHorizontalError: 12.5, reportMaxHorizontalError: 800, maxAge: .seconds(45), hold: .zero,
                locateTimeout: .seconds(5), follow: true, followDistance: 0),
            airQuality: AirQualityConfig(enabled: false, baseURL: "http://127.0.0.1:9", scale: .us, timeout: .seconds(2)),
            ownTracks: OwnTracksConfig(
                mqttTopics: ["owntracks/+/+"], http: true, follow: "alice/phone", devices: false, deviceDistance: 250,
                deviceTTL: .seconds(3600), secretFile: "/etc/weatherd/owntracks-secret"),
            geoclue: GeoClueConfig(enabled: true, accuracy: .street, desktopID: "org.example.Weather", maxHorizontalError: 900),
            alerts: AlertsConfig(
                nwsURL: "http://127.0.0.1:8084/nws", contact: "ops@example.org", refresh: .seconds(90), requestsPerMinute: 5,
                timeout: .seconds(3)),
            region: RegionConfig(debounce: .seconds(1), around: 0, concurrency: 32),
            state: StateConfig(directory: "/srv/weatherd"),
            web: WebConfig(
                listen: "[::1]:8090", readOnly: true, maxClients: 3, allowedHosts: ["weather.example"],
                tileURL: "https://tile.example/{z}/{x}/{y}.png", tileAttribution: "© Tiles \"T\""),
            mqtt: MQTTConfig(
                broker: "mqtts://broker.example:8884", clientID: "van-7", topicPrefix: "fleet/weather",
                username: "van7", passwordFile: "/etc/weatherd/mqtt-password", keepalive: .seconds(60),
                homeAssistant: true, discoveryPrefix: "ha"))
    }

    @Test("render shows <redacted> for the key and never the key itself")
    func keyRedacted() {
        let text = ConfigLoader.render(Self.changed)
        #expect(text.contains("api_key = \"<redacted>\""))
        #expect(!text.contains("s3cr3t-KEY"))
    }

    @Test("render of the defaults shows every key, durations and the mode as text")
    func defaultsRendered() {
        let text = ConfigLoader.render(DaemonConfig())
        for line in [
            "cities = [\"Seoul,KR\", \"London,GB\"]", "refresh = \"10m\"", "[weather]",
            "providers = [\"openweathermap\", \"open-meteo\"]", "units = \"metric\"", "lang = \"en\"",
            "cache_ttl = \"10m\"", "geocode_ttl = \"30d\"", "[openweathermap]",
            "base_url = \"https://api.openweathermap.org\"", "api_key_file = \"/etc/weatherd/owm-api-key\"",
            "timeout = \"10s\"", "requests_per_minute = 60", "[open-meteo]", "base_url = \"https://api.open-meteo.com\"",
            "geocoding_url = \"https://geocoding-api.open-meteo.com\"", "api_key_file = \"\"", "requests_per_minute = 600",
            "requests_per_day = 10000", "[socket]", "path = \"/run/weatherd/weatherd.sock\"", "mode = \"0660\"",
            "max_clients = 256", "[gpsd]", "enabled = true", "host = \"127.0.0.1\"", "port = 2947",
            "[location]", "max_horizontal_error = 100.0", "report_max_horizontal_error = 5000.0", "max_age = \"2m\"",
            "hold = \"30s\"", "locate_timeout = \"30s\"", "follow = false", "follow_distance = 1000.0", "[geoclue]", "enabled = false",
            "accuracy = \"city\"", "desktop_id = \"weatherd\"", "max_horizontal_error = 25000.0", "[region]", "debounce = \"250ms\"",
            "around = 1", "concurrency = 4",
            "[state]", "directory = \"/var/lib/weatherd\"",
        ] {
            #expect(text.contains(line + "\n"), "missing \(line)")
        }
        #expect(!text.contains("api_key = "))
    }

    @Test("the rendered defaults parse back to the defaults")
    func defaultsRoundTrip() throws {
        #expect(try parseConfig(ConfigLoader.render(DaemonConfig())) == DaemonConfig())
    }

    @Test("a rendered configuration parses back to the same configuration, the key as <redacted>")
    func roundTrip() throws {
        var parsed = try parseConfig(ConfigLoader.render(Self.changed))
        #expect(parsed.openWeatherMap.apiKey?.revealed == "<redacted>")
        parsed.openWeatherMap.apiKey = nil
        var expected = Self.changed
        expected.openWeatherMap.apiKey = nil
        #expect(parsed == expected)
    }
}
