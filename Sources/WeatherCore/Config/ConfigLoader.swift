import TOMLKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads, checks and renders the daemon's TOML configuration, and finds the OpenWeatherMap API key.
public enum ConfigLoader {
    /// The name of the API key's environment variable.
    public static let apiKeyEnvironmentVariable = "OWM_API_KEY"
    /// The name of the systemd credential holding the API key (`LoadCredential=owm-api-key:PATH`).
    public static let apiKeyCredentialName = "owm-api-key"

    /// Parses and checks TOML text; `file` is the path used in messages. Collects every problem (not
    /// just the first) before throwing.
    ///
    /// A syntax error is one problem, `FILE:LINE:COLUMN: message` with toml++'s message. Otherwise
    /// every unknown key, wrong type and out-of-range value is a problem `FILE:LINE:COLUMN: key.path:
    /// message`, at the key (an array's element at the element). A configuration without a problem
    /// comes with its warnings (`FILE:LINE:COLUMN: key.path: message` for each deprecated key given)
    /// and the origin of each value.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> LoadedConfig {
        if let nul = text.utf8.firstIndex(of: 0) {
            // toml++ would see the text only up to here; say where it stops instead.
            let (line, column) = position(of: text.utf8.distance(from: text.utf8.startIndex, to: nul), in: Array(text.utf8))
            throw ConfigError(
                ConfigProblem(
                    file: file, line: line, column: column,
                    message: "null characters are not allowed in TOML documents"))
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(
                ConfigProblem(
                    file: file, line: error.source.begin.line,
                    column: error.source.begin.column, message: error.description))
        } catch {
            throw ConfigError(ConfigProblem(file: file, message: "cannot parse: \(error)"))
        }
        var checker = ConfigChecker(file: file)
        let config = checker.check(root)
        if !checker.problems.isEmpty || !checker.warnings.isEmpty {
            let positions = TOMLKeyPositions(text)
            checker.problems = checker.problems.map { $0.placed(by: positions) }
            checker.warnings = checker.warnings.map { $0.placed(by: positions) }
        }
        guard checker.problems.isEmpty else { throw ConfigError(problems: checker.problems) }
        return LoadedConfig(config: config, warnings: checker.warnings, origins: checker.origins)
    }

    /// Parses and checks the bytes of a configuration file, like ``parse(_:file:)``. Bytes that are
    /// not UTF-8 are a syntax error `FILE:LINE:COLUMN: message` at the first byte of the first invalid
    /// sequence.
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> LoadedConfig {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        decoding: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar):
                offset += scalar.count
            case .emptyInput:
                break decoding
            case .error:
                let (line, column) = position(of: offset, in: bytes)
                let byte = "0x" + (bytes[offset] < 0x10 ? "0" : "") + String(bytes[offset], radix: 16, uppercase: true)
                throw ConfigError(
                    ConfigProblem(
                        file: file, line: line, column: column,
                        message: "expected UTF-8 text, found the byte \(byte), which begins no valid UTF-8 sequence"))
            }
        }
        return try parse(String(decoding: bytes, as: UTF8.self), file: file)
    }

    /// Reads the file at `path` and parses it with the text `parse(_:file:)`; a file that cannot be
    /// read is a problem `PATH: cannot read the configuration file: reason` (`no such file`,
    /// `permission denied`, …). Any readable file is read to its end, whatever its kind: `/dev/null`
    /// is an empty file.
    public static func load(path: String) throws(ConfigError) -> LoadedConfig {
        let bytes: [UInt8]
        do {
            bytes = try FileReader.bytes(atPath: path)
        } catch {
            throw ConfigError(ConfigProblem(file: path, message: "cannot read the configuration file: \(error.reason)"))
        }
        return try parse(bytes, file: path)
    }

    /// The line and column (both from 1) of the byte at `offset` in `bytes`, which are valid UTF-8 up to
    /// it. Columns count Unicode scalars, as toml++ does for its syntax errors, and on the first line
    /// a byte order mark (which toml++ skips) is not counted.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let before = bytes[..<offset]
        let line = before.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        var lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        if lineStart == 0, before.starts(with: [0xEF, 0xBB, 0xBF]) { lineStart = 3 }
        // Every scalar has exactly one byte that is not a continuation byte (10xxxxxx).
        let column = bytes[lineStart..<offset].count(where: { $0 & 0xC0 != 0x80 }) + 1
        return (line, column)
    }

    /// The API key, first found wins: the environment variable `OWM_API_KEY`; the file
    /// `$CREDENTIALS_DIRECTORY/owm-api-key` (systemd `LoadCredential=`); the file
    /// `config.openWeatherMap.apiKeyFile`; `config.openWeatherMap.apiKey`.
    ///
    /// Each value is trimmed of surrounding white space and newlines; an empty value counts as not
    /// found. `readFile` returns nil when the file cannot be read. When none is found, throws a
    /// `ConfigError` with one problem (`FILE: message`) that says how to provide a key.
    public static func resolveAPIKey(
        _ config: DaemonConfig,
        file: String,
        environment: [String: String],
        readFile: (String) -> String?
    ) throws(ConfigError) -> Secret {
        guard let found = findAPIKey(config, file: file, environment: environment, readFile: readFile) else {
            throw ConfigError(ConfigProblem(file: file, message: "no openweathermap api key: " + apiKeyHint(config)))
        }
        return found.key
    }

    /// How to give OpenWeatherMap a key, for the messages that say none was found.
    public static func apiKeyHint(_ config: DaemonConfig) -> String {
        "set the environment variable \(apiKeyEnvironmentVariable), "
            + "or LoadCredential=\(apiKeyCredentialName):PATH in the systemd unit, "
            + "or put the key in the file \(config.openWeatherMap.apiKeyFile) (openweathermap.api_key_file), "
            + "or set openweathermap.api_key"
    }

    /// The API key as ``resolveAPIKey(_:file:environment:readFile:)`` finds it, and where it was found
    /// (`file` when it is `openweathermap.api_key` of the configuration file); nil when there is none.
    public static func findAPIKey(
        _ config: DaemonConfig,
        file: String,
        environment: [String: String],
        readFile: (String) -> String?
    ) -> (key: Secret, origin: ConfigOrigin)? {
        if let key = secret(environment[apiKeyEnvironmentVariable]) {
            return (key, .elsewhere("the environment variable \(apiKeyEnvironmentVariable)"))
        }
        if let (key, path) = credential(apiKeyCredentialName, environment: environment, readFile: readFile) {
            return (key, .elsewhere("the credential \(path)"))
        }
        if let key = secret(readFile(config.openWeatherMap.apiKeyFile)) {
            return (key, .elsewhere("the file \(config.openWeatherMap.apiKeyFile) (api_key_file)"))
        }
        if let key = secret(config.openWeatherMap.apiKey?.revealed) { return (key, .file(file)) }
        return nil
    }

    /// Checks that some provider of `weather.providers` can serve with the keys found (OpenWeatherMap
    /// needs its key; Open-Meteo needs none).
    /// - Throws: a `ConfigError` saying how to give OpenWeatherMap a key, when none can.
    public static func checkProviders(_ config: DaemonConfig, keys: ProviderKeys, file: String) throws(ConfigError) {
        guard !config.weather.providers.contains(where: { $0.canServe(with: keys) }) else { return }
        throw ConfigError(
            ConfigProblem(
                file: file,
                message: "no provider in weather.providers can serve: no openweathermap api key: " + apiKeyHint(config)
                    + "; or add \"open-meteo\" (no key needed) to weather.providers"))
    }
}
