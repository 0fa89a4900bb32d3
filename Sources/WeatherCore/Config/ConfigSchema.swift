/// Every key of `weatherd.toml`, in the order of the contract. Adding a key is one entry here (and its
/// property in ``DaemonConfig``, with its default); checking, `--check-config` and reloads follow from it.
public enum ConfigSchema {
    /// The tables of the file, in order ("" is the top level).
    public static let tables = ["", "openweathermap", "socket", "gpsd", "region", "state", "web", "mqtt"]

    /// Every key, table by table.
    public static let keys: [ConfigKey] = [
        ConfigKey("cities", \.cities, .cityList, reload: .live),
        ConfigKey("refresh", \.refresh, .duration(.atLeast(.seconds(1))), reload: .live),

        ConfigKey("openweathermap.base_url", \.openWeatherMap.baseURL, .httpURL, reload: .refetch),
        ConfigKey("openweathermap.api_key_file", \.openWeatherMap.apiKeyFile, .nonEmpty("path"), reload: .live),
        ConfigKey("openweathermap.api_key", \.openWeatherMap.apiKey, .secret, reload: .live),
        ConfigKey("openweathermap.units", \.openWeatherMap.units, .choice, reload: .refetch),
        ConfigKey("openweathermap.lang", \.openWeatherMap.lang, .languageCode, reload: .refetch),
        ConfigKey("openweathermap.timeout", \.openWeatherMap.timeout,
                  .duration(.moreThan(.zero, atMost: .seconds(300))), reload: .live),
        ConfigKey("openweathermap.requests_per_minute", \.openWeatherMap.requestsPerMinute, .integer(1...6000), reload: .live),
        ConfigKey("openweathermap.cache_ttl", \.openWeatherMap.cacheTTL, .duration(), reload: .live),

        ConfigKey("socket.path", \.socket.path, .socketPath, reload: .restart),
        ConfigKey("socket.mode", \.socket.mode, .fileMode, reload: .live),
        ConfigKey("socket.max_clients", \.socket.maxClients, .integer(1...65536), reload: .live),

        ConfigKey("gpsd.enabled", \.gpsd.enabled, .boolean, reload: .live),
        ConfigKey("gpsd.host", \.gpsd.host, .nonEmpty("host name or address"), reload: .live),
        ConfigKey("gpsd.port", \.gpsd.port, .integer(1...65535), reload: .live),
        ConfigKey("gpsd.max_horizontal_error", \.gpsd.maxHorizontalError, .metres(greaterThan: 0), reload: .live),
        ConfigKey("gpsd.locate_timeout", \.gpsd.locateTimeout,
                  .duration(.moreThan(.zero, atMost: .seconds(600))), reload: .live),
        ConfigKey("gpsd.follow", \.gpsd.follow, .boolean, reload: .live),
        ConfigKey("gpsd.follow_distance", \.gpsd.followDistance, .metres(atLeast: 0), reload: .live),

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
        ConfigKey("mqtt.keepalive", \.mqtt.keepalive, .duration(.init(lower: (.seconds(5), true), upper: .seconds(65535))), reload: .restart),
        ConfigKey("mqtt.homeassistant", \.mqtt.homeAssistant, .boolean, reload: .restart),
        ConfigKey("mqtt.discovery_prefix", \.mqtt.discoveryPrefix, .topicName, reload: .restart),
    ]

    /// The names each table may hold ("" is the top level, whose names include the tables).
    public static var knownKeys: [(table: String, keys: [String])] {
        tables.map { table in
            let names = keys.filter { $0.table == table }.map(\.name)
            return (table, table.isEmpty ? names + tables.dropFirst() : names)
        }
    }
}
