extension ConfigLoader {
    /// The name of the systemd credential holding the OwnTracks encryption key
    /// (`LoadCredential=owntracks-secret:PATH`).
    public static let ownTracksSecretCredentialName = "owntracks-secret"

    /// The OwnTracks encryption key, first found wins: `$CREDENTIALS_DIRECTORY/owntracks-secret`
    /// (systemd `LoadCredential=`), then the file `owntracks.secret_file`. nil when neither is given.
    /// The value is trimmed of surrounding white space and newlines.
    ///
    /// Throws a `ConfigError` (`FILE: owntracks.secret_file: message`) when `secret_file` is set but
    /// cannot be read or is empty. The key itself never appears in a message.
    public static func resolveOwnTracksSecret(
        _ config: DaemonConfig,
        file: String,
        environment: [String: String],
        readFile: (String) -> String?
    ) throws(ConfigError) -> Secret? {
        if let found = credential(ownTracksSecretCredentialName, environment: environment, readFile: readFile) {
            return found.secret
        }
        let secretFile = config.ownTracks.secretFile
        guard !secretFile.isEmpty else { return nil }
        guard let text = readFile(secretFile) else {
            throw ConfigError(
                ConfigProblem(file: file, keyPath: "owntracks.secret_file", message: "cannot read \(ConfigText.quoted(secretFile))"))
        }
        guard let found = secret(text) else {
            throw ConfigError(
                ConfigProblem(file: file, keyPath: "owntracks.secret_file", message: "\(ConfigText.quoted(secretFile)) holds no key"))
        }
        return found
    }
}
