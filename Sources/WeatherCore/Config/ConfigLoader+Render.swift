extension ConfigLoader {
    /// The effective configuration as TOML: every key of ``ConfigSchema`` with its value, in order.
    ///
    /// The API key is never shown: `api_key = "<redacted>"` when one is set inline, a comment when not.
    /// Durations are written like `"10m"` and `"250ms"` (``DurationText/format(_:)``), the socket mode as
    /// an octal string like `"0660"`. Deprecated keys are not written: their value is the one of the key
    /// they moved to. The text parses back to the same configuration (except the key).
    public static func render(_ config: DaemonConfig) -> String {
        var lines: [String] = []
        for table in ConfigSchema.tables {
            if !table.isEmpty {
                lines.append("")
                lines.append("[\(table)]")
            }
            for key in ConfigSchema.keys where key.table == table {
                if let value = key.written(config) {
                    lines.append("\(key.name) = \(value)")
                } else {
                    lines.append("# \(key.name) is not set")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
