/// Every key of `weatherd.toml`, in the order of the contract. Adding a key is one entry here (and its
/// property in ``DaemonConfig``, with its default); checking, `--check-config` and reloads follow from it.
/// Moving a key is one entry in ``movedKeys``: the old path is still read, with a warning.
public enum ConfigSchema {
    /// The tables of the file, in order ("" is the top level).
    public static let tables = [
        "", "weather", "openweathermap", "open-meteo", "socket", "gpsd", "location", "owntracks", "geoclue", "air-quality",
        "alerts",
        "region", "state", "web", "mqtt",
    ]

    /// Every key, table by table.
    public static let keys: [ConfigKey] = [
        ConfigKey("cities", \.cities, .cityList, reload: .live),
        ConfigKey("refresh", \.refresh, .duration(.atLeast(.seconds(1))), reload: .live),

        // Shared by every weather provider. A new provider list, units or language makes the weather
        // fetched before wrong.
        ConfigKey("weather.providers", \.weather.providers, .providerList, reload: .refetch),
        ConfigKey("weather.units", \.weather.units, .choice, reload: .refetch),
        ConfigKey("weather.lang", \.weather.lang, .languageCode, reload: .refetch),
        ConfigKey("weather.cache_ttl", \.weather.cacheTTL, .duration(), reload: .live),
        ConfigKey(
            "weather.geocode_ttl", \.weather.geocodeTTL,
            .duration(.init(lower: (.seconds(60), true), upper: .seconds(365 * 86_400))), reload: .live),

        ConfigKey("openweathermap.base_url", \.openWeatherMap.baseURL, .httpURL, reload: .refetch),
        ConfigKey("openweathermap.api_key_file", \.openWeatherMap.apiKeyFile, .nonEmpty("path"), reload: .live),
        ConfigKey("openweathermap.api_key", \.openWeatherMap.apiKey, .secret, reload: .live),
        ConfigKey(
            "openweathermap.timeout", \.openWeatherMap.timeout,
            .duration(.moreThan(.zero, atMost: .seconds(300))), reload: .live),
        ConfigKey("openweathermap.requests_per_minute", \.openWeatherMap.requestsPerMinute, .integer(1...6000), reload: .live),

        // No key in the file itself: a commercial key comes from the credential or api_key_file.
        ConfigKey("open-meteo.base_url", \.openMeteo.baseURL, .httpURL, reload: .refetch),
        ConfigKey("open-meteo.geocoding_url", \.openMeteo.geocodingURL, .httpURL, reload: .refetch),
        ConfigKey("open-meteo.api_key_file", \.openMeteo.apiKeyFile, .string, reload: .live),
        ConfigKey(
            "open-meteo.timeout", \.openMeteo.timeout,
            .duration(.moreThan(.zero, atMost: .seconds(300))), reload: .live),
        ConfigKey("open-meteo.requests_per_minute", \.openMeteo.requestsPerMinute, .integer(1...6000), reload: .live),
        ConfigKey("open-meteo.requests_per_day", \.openMeteo.requestsPerDay, .integer(1...10_000_000), reload: .live),

        ConfigKey("socket.path", \.socket.path, .socketPath, reload: .restart),
        ConfigKey("socket.mode", \.socket.mode, .fileMode, reload: .live),
        ConfigKey("socket.max_clients", \.socket.maxClients, .integer(1...65536), reload: .live),

        ConfigKey("gpsd.enabled", \.gpsd.enabled, .boolean, reload: .live),
        ConfigKey("gpsd.host", \.gpsd.host, .nonEmpty("host name or address"), reload: .live),
        ConfigKey("gpsd.port", \.gpsd.port, .integer(1...65535), reload: .live),

        ConfigKey("location.max_horizontal_error", \.location.maxHorizontalError, .metres(greaterThan: 0), reload: .live),
        ConfigKey(
            "location.report_max_horizontal_error", \.location.reportMaxHorizontalError, .metres(greaterThan: 0), reload: .live),
        ConfigKey(
            "location.max_age", \.location.maxAge, .duration(.moreThan(.zero, atMost: .seconds(7 * 86_400))), reload: .live),
        ConfigKey("location.hold", \.location.hold, .duration(.atMost(.seconds(86_400))), reload: .live),
        ConfigKey(
            "location.locate_timeout", \.location.locateTimeout,
            .duration(.moreThan(.zero, atMost: .seconds(600))), reload: .live),
        ConfigKey("location.follow", \.location.follow, .boolean, reload: .live),
        ConfigKey("location.follow_distance", \.location.followDistance, .metres(atLeast: 0), reload: .live),

        // The subscriptions are made on the [mqtt] connection, once, at start.
        ConfigKey("owntracks.mqtt_topics", \.ownTracks.mqttTopics, .topicFilterList, reload: .restart),
        ConfigKey("owntracks.http", \.ownTracks.http, .boolean, reload: .live),
        ConfigKey("owntracks.follow", \.ownTracks.follow, .ownTracksDevice, reload: .live),
        ConfigKey("owntracks.devices", \.ownTracks.devices, .boolean, reload: .live),
        ConfigKey("owntracks.device_distance", \.ownTracks.deviceDistance, .metres(atLeast: 0), reload: .live),
        ConfigKey(
            "owntracks.device_ttl", \.ownTracks.deviceTTL, .duration(.moreThan(.zero, atMost: .seconds(30 * 86_400))), reload: .live),
        ConfigKey("owntracks.secret_file", \.ownTracks.secretFile, .string, reload: .live),
        // The GeoClue client is made once, at start: only its accuracy limit applies at a reload.
        ConfigKey("geoclue.enabled", \.geoclue.enabled, .boolean, reload: .restart),
        ConfigKey("geoclue.accuracy", \.geoclue.accuracy, .choice, reload: .restart),
        ConfigKey("geoclue.desktop_id", \.geoclue.desktopID, .desktopID, reload: .restart),
        ConfigKey("geoclue.max_horizontal_error", \.geoclue.maxHorizontalError, .metres(greaterThan: 0), reload: .live),
        // Air quality: a new URL or timeout applies to the next request. The scale names the Home
        // Assistant sensor's value, published once at start.
        ConfigKey("air-quality.enabled", \.airQuality.enabled, .boolean, reload: .live),
        ConfigKey("air-quality.base_url", \.airQuality.baseURL, .httpURL, reload: .live),
        ConfigKey("air-quality.scale", \.airQuality.scale, .choice, reload: .restart),
        ConfigKey(
            "air-quality.timeout", \.airQuality.timeout, .duration(.moreThan(.zero, atMost: .seconds(300))), reload: .live),

        // The User-Agent is the alert transport's own, made at start.
        ConfigKey("alerts.providers", \.alerts.providers, .alertProviderList, reload: .restart),
        ConfigKey("alerts.nws_url", \.alerts.nwsURL, .httpURL, reload: .restart),
        ConfigKey("alerts.contact", \.alerts.contact, .headerText, reload: .restart),
        ConfigKey("alerts.refresh", \.alerts.refresh, .duration(.atLeast(.seconds(1))), reload: .live),
        ConfigKey("alerts.requests_per_minute", \.alerts.requestsPerMinute, .integer(1...6000), reload: .live),
        ConfigKey(
            "alerts.timeout", \.alerts.timeout, .duration(.moreThan(.zero, atMost: .seconds(300))), reload: .restart),

        ConfigKey("region.debounce", \.region.debounce, .duration(.atMost(.seconds(10))), reload: .restart),
        ConfigKey("region.around", \.region.around, .integer(0...3), reload: .live),
        ConfigKey("region.concurrency", \.region.concurrency, .integer(1...32), reload: .live),

        ConfigKey("state.directory", \.state.directory, .nonEmpty("path"), reload: .restart),

        ConfigKey("web.listen", \.web.listen, .listenAddress, reload: .restart),
        ConfigKey("web.read_only", \.web.readOnly, .boolean, reload: .live),
        ConfigKey("web.max_clients", \.web.maxClients, .integer(1...65536), reload: .live),
        ConfigKey("web.allowed_hosts", \.web.allowedHosts, .hostList, reload: .live),
        ConfigKey("web.tile_url", \.web.tileURL, .tileURL, reload: .live),
        ConfigKey("web.tile_attribution", \.web.tileAttribution, .string, reload: .live),

        // The MQTT connection is made once, at start: every key takes a restart.
        ConfigKey("mqtt.broker", \.mqtt.broker, .brokerURL, reload: .restart),
        ConfigKey("mqtt.client_id", \.mqtt.clientID, .topicLevel(allowEmpty: true), reload: .restart),
        ConfigKey("mqtt.topic_prefix", \.mqtt.topicPrefix, .topicName, reload: .restart),
        ConfigKey("mqtt.username", \.mqtt.username, .string, reload: .restart),
        ConfigKey("mqtt.password_file", \.mqtt.passwordFile, .string, reload: .restart),
        ConfigKey(
            "mqtt.keepalive", \.mqtt.keepalive, .duration(.init(lower: (.seconds(5), true), upper: .seconds(65535))), reload: .restart),
        ConfigKey("mqtt.homeassistant", \.mqtt.homeAssistant, .boolean, reload: .restart),
        ConfigKey("mqtt.discovery_prefix", \.mqtt.discoveryPrefix, .topicName, reload: .restart),
    ]

    /// Deprecated keys: each is still read, with the type and checks of the key it moved to (its
    /// ``ConfigKey/movedTo``), into that key's property, but only when that key is not given; either
    /// way a warning says so. They are not rendered, and a reload looks at the keys they moved to.
    public static let movedKeys: [ConfigKey] = [
        key("weather.units")!.moved(from: "openweathermap.units"),
        key("weather.lang")!.moved(from: "openweathermap.lang"),
        key("weather.cache_ttl")!.moved(from: "openweathermap.cache_ttl"),
        key("location.max_horizontal_error")!.moved(from: "gpsd.max_horizontal_error"),
        key("location.locate_timeout")!.moved(from: "gpsd.locate_timeout"),
        key("location.follow")!.moved(from: "gpsd.follow"),
        key("location.follow_distance")!.moved(from: "gpsd.follow_distance"),
    ]

    /// Unknown keys whose likely meaning no spelling rule finds, by path: the key of the same table
    /// to suggest instead. (`open-meteo.api_key` would otherwise be pointed at
    /// `openweathermap.api_key`; an Open-Meteo key is never written in the file.)
    static let suggestions = ["open-meteo.api_key": "api_key_file"]

    /// The key of ``keys`` at `path`, like `"weather.units"`.
    public static func key(_ path: String) -> ConfigKey? {
        keys.first { $0.path == path }
    }

    /// The names each table may hold, deprecated ones last ("" is the top level, whose names include
    /// the tables).
    public static var knownKeys: [(table: String, keys: [String])] {
        tables.map { table in
            let names = (keys + movedKeys).filter { $0.table == table }.map(\.name)
            return (table, table.isEmpty ? names + tables.dropFirst() : names)
        }
    }
}
