import Foundation
import TOMLKit

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
    /// every unknown key, wrong type and out-of-range value is a problem `FILE: key.path: message`.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> DaemonConfig {
        if let nul = text.utf8.firstIndex(of: 0) {
            // toml++ would see the text only up to here; say where it stops instead.
            let before = text.utf8[..<nul]
            let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { text.utf8.index(after: $0) } ?? text.utf8.startIndex
            let column = text[lineStart..<nul].count + 1
            throw ConfigError(ConfigProblem(file: file, line: line, column: column,
                                            message: "null characters are not allowed in TOML documents"))
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(ConfigProblem(file: file, line: error.source.begin.line,
                                            column: error.source.begin.column, message: error.description))
        } catch {
            throw ConfigError(ConfigProblem(file: file, message: "cannot parse: \(error)"))
        }
        var checker = ConfigChecker(file: file)
        let config = checker.check(root)
        guard checker.problems.isEmpty else { throw ConfigError(problems: checker.problems) }
        return config
    }

    /// Reads the file at `path` and parses it with ``parse(_:file:)``; a file that cannot be read
    /// is a problem `PATH: cannot read the configuration file: reason`.
    public static func load(path: String) throws(ConfigError) -> DaemonConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason: String
            switch (error as? CocoaError)?.code {
            case .fileReadNoSuchFile?, .fileNoSuchFile?: reason = "no such file"
            case .fileReadNoPermission?: reason = "permission denied"
            case .fileReadInapplicableStringEncoding?: reason = "not utf-8 text"
            default:
                let text = (error as NSError).localizedDescription
                reason = text.prefix(1).lowercased() + text.dropFirst()
            }
            throw ConfigError(ConfigProblem(file: path, message: "cannot read the configuration file: \(reason)"))
        }
        return try parse(text, file: path)
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
        func usable(_ value: String?) -> Secret? {
            guard let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
                return nil
            }
            return Secret(trimmed)
        }
        if let key = usable(environment[apiKeyEnvironmentVariable]) { return key }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let path = directory.hasSuffix("/") ? directory + apiKeyCredentialName : directory + "/" + apiKeyCredentialName
            if let key = usable(readFile(path)) { return key }
        }
        if let key = usable(readFile(config.openWeatherMap.apiKeyFile)) { return key }
        if let key = usable(config.openWeatherMap.apiKey?.revealed) { return key }
        throw ConfigError(ConfigProblem(
            file: file,
            message: "no openweathermap api key: set the environment variable \(apiKeyEnvironmentVariable), "
                + "or LoadCredential=\(apiKeyCredentialName):PATH in the systemd unit, "
                + "or put the key in the file \(config.openWeatherMap.apiKeyFile) (openweathermap.api_key_file), "
                + "or set openweathermap.api_key"))
    }
}
