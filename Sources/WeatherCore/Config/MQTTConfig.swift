/// The `[mqtt]` table: publishing to an MQTT broker. Every key takes effect after a restart.
public struct MQTTConfig: Sendable, Equatable {
    /// `broker`: `mqtt://HOST:PORT` or `mqtts://HOST:PORT`; "" = off.
    public var broker: String
    /// `client_id`: the MQTT client id and the device name `D` in topics; "" = the host name.
    public var clientID: String
    /// `topic_prefix`: `P` in the topics `P/D/...`.
    public var topicPrefix: String
    /// `username`: "" = none.
    public var username: String
    /// `password_file`: a file holding the password; "" = none (see ``password``).
    public var passwordFile: String
    /// `keepalive`: the MQTT keep-alive interval.
    public var keepalive: Duration
    /// `homeassistant`: publish Home Assistant MQTT discovery.
    public var homeAssistant: Bool
    /// `discovery_prefix`: Home Assistant's discovery prefix.
    public var discoveryPrefix: String
    /// Not a key: the password found for the broker, first found wins: the systemd credential
    /// `$CREDENTIALS_DIRECTORY/mqtt-password`, then `password_file` (``ConfigLoader/resolveMQTTPassword``).
    public var password: Secret?

    public init(
        broker: String = "", clientID: String = "", topicPrefix: String = "weatherd", username: String = "",
        passwordFile: String = "", keepalive: Duration = .seconds(30), homeAssistant: Bool = false,
        discoveryPrefix: String = "homeassistant", password: Secret? = nil
    ) {
        self.broker = broker
        self.clientID = clientID
        self.topicPrefix = topicPrefix
        self.username = username
        self.passwordFile = passwordFile
        self.keepalive = keepalive
        self.homeAssistant = homeAssistant
        self.discoveryPrefix = discoveryPrefix
        self.password = password
    }

    /// The broker to connect to; nil when MQTT is off (`broker = ""`).
    public var brokerAddress: BrokerAddress? { BrokerAddress(broker) }
}

/// Where the broker is: `mqtt://HOST:PORT` (port 1883 when left out) or `mqtts://HOST:PORT` (TLS, 8883).
public struct BrokerAddress: Sendable, Equatable, CustomStringConvertible {
    public var tls: Bool
    /// The host without brackets.
    public var host: String
    public var port: Int

    public init(tls: Bool, host: String, port: Int) {
        self.tls = tls
        self.host = host
        self.port = port
    }

    /// Parses `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (an IPv6 host in brackets); nil otherwise.
    public init?(_ text: String) {
        let tls: Bool
        let rest: Substring
        if text.lowercased().hasPrefix("mqtt://") {
            (tls, rest) = (false, text.dropFirst(7))
        } else if text.lowercased().hasPrefix("mqtts://") {
            (tls, rest) = (true, text.dropFirst(8))
        } else {
            return nil
        }
        let hostPort = rest.hasSuffix("/") ? rest.dropLast() : rest
        let defaultPort = tls ? 8883 : 1883
        if let address = ListenAddress(String(hostPort)), address.port > 0 {
            self.init(tls: tls, host: address.host, port: address.port)
        } else if let address = ListenAddress("\(hostPort):\(defaultPort)") {
            self.init(tls: tls, host: address.host, port: address.port)
        } else {
            return nil
        }
    }

    public var description: String { "\(tls ? "mqtts" : "mqtt")://\(host.contains(":" as Character) ? "[\(host)]" : host):\(port)" }
}
