extension ConfigLoader {
    /// The name of the systemd credential holding the MQTT password (`LoadCredential=mqtt-password:PATH`).
    public static let mqttPasswordCredentialName = "mqtt-password"

    /// The MQTT password, first found wins: `$CREDENTIALS_DIRECTORY/mqtt-password` (systemd
    /// `LoadCredential=`), then the file `mqtt.password_file`. nil when MQTT is off or neither is
    /// given. The value is trimmed of surrounding white space and newlines.
    ///
    /// Throws a `ConfigError` (`FILE: mqtt.password_file: message`) when `password_file` is set but
    /// cannot be read or is empty, and when a password is found without `mqtt.username`. The
    /// password itself never appears in a message.
    public static func resolveMQTTPassword(
        _ config: DaemonConfig,
        file: String,
        environment: [String: String],
        readFile: (String) -> String?
    ) throws(ConfigError) -> Secret? {
        guard !config.mqtt.broker.isEmpty else { return nil }
        var password = credential(mqttPasswordCredentialName, environment: environment, readFile: readFile)?.secret
        let passwordFile = config.mqtt.passwordFile
        if password == nil, !passwordFile.isEmpty {
            guard let text = readFile(passwordFile) else {
                throw ConfigError(
                    ConfigProblem(file: file, keyPath: "mqtt.password_file", message: "cannot read \(ConfigText.quoted(passwordFile))"))
            }
            guard let found = secret(text) else {
                throw ConfigError(
                    ConfigProblem(
                        file: file, keyPath: "mqtt.password_file", message: "\(ConfigText.quoted(passwordFile)) holds no password"))
            }
            password = found
        }
        if password != nil, config.mqtt.username.isEmpty {
            throw ConfigError(
                ConfigProblem(
                    file: file, keyPath: "mqtt.username",
                    message: "a password is given (mqtt.password_file or LoadCredential=\(mqttPasswordCredentialName)) but no user name"))
        }
        return password
    }
}
