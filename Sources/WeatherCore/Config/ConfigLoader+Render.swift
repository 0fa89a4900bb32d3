extension ConfigLoader {
    /// The effective configuration as TOML: every key of ``ConfigSchema/keys`` with its value, in order.
    ///
    /// The API key is never shown: `api_key = "<redacted>"` when one is set inline, a comment when not.
    /// Durations are written like `"10m"` and `"250ms"` (``DurationText/format(_:)``), the socket mode as
    /// an octal string like `"0660"`. Deprecated keys are not written: their value is the one of the key
    /// they moved to. The text parses back to the same configuration (except the key).
    ///
    /// With `origins`, each key's line ends with a comment saying where its value came from
    /// (``ConfigOrigin``), aligned within its table: `units = "imperial"   # from openweathermap.units (deprecated)`.
    public static func render(_ config: DaemonConfig, origins: ConfigOrigins? = nil) -> String {
        var lines: [String] = []
        for table in ConfigSchema.tables {
            if !table.isEmpty {
                lines.append("")
                lines.append("[\(table)]")
            }
            var entries: [(text: String, origin: ConfigOrigin?)] = []
            for key in ConfigSchema.keys where key.table == table {
                if let value = key.written(config) {
                    entries.append(("\(key.name) = \(value)", origins?[key.path]))
                } else {
                    entries.append(("# \(key.name) is not set", nil))
                }
            }
            // The origin comments start in one column, past the longest line of the table that is not
            // too long to wait for.
            let column = entries.filter { $0.origin != nil }.map(\.text.count).filter { $0 <= maxAlignedWidth }.max() ?? 0
            for (text, origin) in entries {
                guard let origin else {
                    lines.append(text)
                    continue
                }
                let padding = String(repeating: " ", count: max(column - text.count, 0) + 3)
                lines.append(text + padding + "# \(origin)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The configuration as read, each key with the origin of its value (see ``render(_:origins:)``).
    public static func render(_ loaded: LoadedConfig) -> String {
        render(loaded.config, origins: loaded.origins)
    }

    /// Lines longer than this do not push the origin comments of their table further right.
    private static let maxAlignedWidth = 48
}
