extension ConfigLoader {
    /// The effective configuration as TOML: every key with its value, in the order of the contract.
    ///
    /// The API key is never shown: `api_key = "<redacted>"` when one is set inline, a comment when not.
    /// Durations are written like `"10m"` and `"250ms"` (``DurationText/format(_:)``), the socket mode as
    /// an octal string like `"0660"`. The text parses back to the same configuration (except the key).
    public static func render(_ config: DaemonConfig) -> String {
        let owm = config.openWeatherMap
        var lines: [String] = []
        func key(_ name: String, _ value: String) { lines.append("\(name) = \(value)") }
        func table(_ name: String) { lines.append(""); lines.append("[\(name)]") }
        func string(_ value: String) -> String { ConfigChecker.quoted(value, limit: false) }
        func duration(_ value: Duration) -> String { string(DurationText.format(value)) }
        func number(_ value: Double) -> String { value.isFinite ? "\(value)" : (value.isNaN ? "nan" : value < 0 ? "-inf" : "inf") }

        key("cities", "[" + config.cities.map(string).joined(separator: ", ") + "]")
        key("refresh", duration(config.refresh))

        table("openweathermap")
        key("base_url", string(owm.baseURL))
        key("api_key_file", string(owm.apiKeyFile))
        if owm.apiKey != nil {
            key("api_key", string("<redacted>"))
        } else {
            lines.append("# api_key is not set")
        }
        key("units", string(owm.units.rawValue))
        key("lang", string(owm.lang))
        key("timeout", duration(owm.timeout))
        key("requests_per_minute", "\(owm.requestsPerMinute)")
        key("cache_ttl", duration(owm.cacheTTL))

        table("socket")
        key("path", string(config.socket.path))
        let octal = String(config.socket.mode, radix: 8)
        key("mode", string(String(repeating: "0", count: max(0, 4 - octal.count)) + octal))
        key("max_clients", "\(config.socket.maxClients)")

        table("gpsd")
        key("enabled", "\(config.gpsd.enabled)")
        key("host", string(config.gpsd.host))
        key("port", "\(config.gpsd.port)")
        key("max_horizontal_error", number(config.gpsd.maxHorizontalError))
        key("locate_timeout", duration(config.gpsd.locateTimeout))
        key("follow", "\(config.gpsd.follow)")
        key("follow_distance", number(config.gpsd.followDistance))

        table("region")
        key("debounce", duration(config.region.debounce))
        key("around", "\(config.region.around)")
        key("concurrency", "\(config.region.concurrency)")

        table("state")
        key("directory", string(config.state.directory))
        return lines.joined(separator: "\n") + "\n"
    }
}
