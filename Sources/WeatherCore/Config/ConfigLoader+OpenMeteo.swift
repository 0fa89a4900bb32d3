#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ConfigLoader {
    /// The name of the systemd credential holding Open-Meteo's commercial API key
    /// (`LoadCredential=open-meteo-api-key:PATH`).
    public static let openMeteoKeyCredentialName = "open-meteo-api-key"

    /// Open-Meteo's commercial API key and where it was found, first found wins, as the
    /// OpenWeatherMap key orders a credential before a file: the file
    /// `$CREDENTIALS_DIRECTORY/open-meteo-api-key` (systemd `LoadCredential=`), then the file
    /// `open-meteo.api_key_file` when it is not empty.
    ///
    /// Each value is trimmed of surrounding white space and newlines; an empty value, and a file that
    /// cannot be read (`readFile` returns nil), count as not found. nil when none is found: Open-Meteo's
    /// free API is asked, without a key. ``openMeteoKeyFileProblem(_:file:environment:readFile:)``
    /// says when `api_key_file` is given but gave no key. There is no environment variable and no key
    /// in the configuration file itself.
    public static func findOpenMeteoKey(
        _ config: DaemonConfig,
        file: String,
        environment: [String: String],
        readFile: (String) -> String?
    ) -> (key: Secret, origin: ConfigOrigin)? {
        if let (key, path) = credential(openMeteoKeyCredentialName, environment: environment, readFile: readFile) {
            return (key, .elsewhere("the credential \(path)"))
        }
        let keyFile = config.openMeteo.apiKeyFile
        if !keyFile.isEmpty, let key = secret(readFile(keyFile)) {
            return (key, .elsewhere("the file \(keyFile) (open-meteo.api_key_file)"))
        }
        return nil
    }

    /// A warning for a configuration whose `open-meteo.api_key_file` is set but gives no key (it
    /// cannot be read, or holds nothing) while no credential gives one either: Open-Meteo's free API
    /// would be asked instead of the subscription. nil when a key is found or none is asked for.
    /// The message names the file and the key path, never a key.
    public static func openMeteoKeyFileProblem(
        _ config: DaemonConfig,
        file: String,
        environment: [String: String],
        readFile: (String) -> String?
    ) -> ConfigProblem? {
        let keyFile = config.openMeteo.apiKeyFile
        guard !keyFile.isEmpty,
            findOpenMeteoKey(config, file: file, environment: environment, readFile: readFile) == nil
        else { return nil }
        let reason = readFile(keyFile) == nil ? "cannot read \(ConfigText.quoted(keyFile))" : "\(ConfigText.quoted(keyFile)) holds no key"
        return ConfigProblem(
            file: file, keyPath: "open-meteo.api_key_file",
            message: "\(reason); Open-Meteo's free API is asked, without a key")
    }
}
