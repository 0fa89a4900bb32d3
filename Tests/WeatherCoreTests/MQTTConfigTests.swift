import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: [mqtt]")
struct MQTTConfigTests {
    static let cases: [RangeCase] = [
        .ok(#"mqtt.broker = """#), .ok(#"mqtt.broker = "mqtt://127.0.0.1:1883""#), .ok(#"mqtt.broker = "mqtts://broker.example""#),
        .ok(#"mqtt.broker = "mqtt://[::1]:1883""#), .bad(#"mqtt.broker = "tcp://broker:1883""#),
        .bad(#"mqtt.broker = "mqtt://broker:0""#), .bad(#"mqtt.broker = "mqtt://broker:65536""#),
        .bad(#"mqtt.broker = "mqtt://user:pw@broker:1883""#), .bad(#"mqtt.broker = "mqtt://""#),
        .ok(#"mqtt.client_id = """#), .ok(#"mqtt.client_id = "van-12""#), .bad(#"mqtt.client_id = "a/b""#),
        .bad(#"mqtt.client_id = "a+""#), .bad(##"mqtt.client_id = "#""##),
        .ok("mqtt.client_id = \"\(String(repeating: "c", count: 128))\""),
        .bad("mqtt.client_id = \"\(String(repeating: "c", count: 129))\""),
        .ok(#"mqtt.topic_prefix = "fleet/weather""#), .bad(#"mqtt.topic_prefix = """#), .bad(#"mqtt.topic_prefix = "a/#""#),
        .bad(#"mqtt.topic_prefix = "/weatherd""#), .bad(#"mqtt.topic_prefix = "weatherd/""#),
        .ok(#"mqtt.keepalive = "5s""#), .bad(#"mqtt.keepalive = "4s""#), .ok(#"mqtt.keepalive = "65535s""#),
        .bad(#"mqtt.keepalive = "65536s""#), .bad("mqtt.keepalive = 30"),
        .ok("mqtt.homeassistant = true"), .bad(#"mqtt.homeassistant = "yes""#),
        .ok(#"mqtt.discovery_prefix = "ha""#), .bad(#"mqtt.discovery_prefix = "ha/+""#),
        .ok(#"mqtt.username = "dev1""#), .bad("mqtt.username = 1"), .ok(#"mqtt.password_file = "/etc/weatherd/mqtt""#),
        .bad("mqtt.password = \"x\"", at: "mqtt.password"),
    ]

    @Test("each key's type and range", arguments: cases)
    func bound(_ range: RangeCase) {
        if range.accepted {
            #expect(throws: Never.self) { try ConfigLoader.parse(range.toml, file: configTestFile) }
        } else {
            #expect(configProblems(range.toml).map(\.keyPath) == [range.keyPath])
        }
    }

    @Test("a broker URL with a user and password is refused without them in the message, which names username and password_file")
    func brokerUserInfoHidden() {
        for url in ["mqtt://u:pw-s3cret@host:1883", "tcp://u:pw-s3cret@host:1883", "u:pw-s3cret@host", "mqtts://u:p@ss/w-s3cret@host"] {
            let problems = configProblems("mqtt.broker = \"\(url)\"")
            #expect(problems.map(\.keyPath) == ["mqtt.broker"], "\(url)")
            let message = problems.map(\.description).joined()
            #expect(!message.contains("s3cret") && !message.contains("u:"), "\(message)")
            #expect(message.contains("mqtt.username") && message.contains("mqtt.password_file") && message.contains("host"), "\(message)")
        }
        #expect(ConfigValueType<String>.withoutUserInfo("mqtt://u:pw@host:1883") == "mqtt://…@host:1883")
    }

    @Test("the defaults are the contract's, and MQTT is off")
    func defaults() throws {
        let mqtt = try ConfigLoader.parse("", file: configTestFile).config.mqtt
        #expect(mqtt == MQTTConfig())
        #expect(mqtt.brokerAddress == nil)
        #expect(mqtt.topicPrefix == "weatherd" && mqtt.keepalive == .seconds(30) && mqtt.discoveryPrefix == "homeassistant")
        #expect(ConfigLoader.render(DaemonConfig()).contains("\n[mqtt]\nbroker = \"\"\n"))
    }

    @Test("broker addresses: scheme, host, port (1883 and 8883 by default)")
    func brokerAddress() {
        #expect(BrokerAddress("mqtt://127.0.0.1:1884") == BrokerAddress(tls: false, host: "127.0.0.1", port: 1884))
        #expect(BrokerAddress("mqtt://broker.example") == BrokerAddress(tls: false, host: "broker.example", port: 1883))
        #expect(BrokerAddress("mqtts://broker.example") == BrokerAddress(tls: true, host: "broker.example", port: 8883))
        #expect(BrokerAddress("mqtts://[::1]:8884") == BrokerAddress(tls: true, host: "::1", port: 8884))
        #expect(BrokerAddress("mqtts://[::1]:8884")?.description == "mqtts://[::1]:8884")
        #expect(BrokerAddress("http://broker") == nil)
    }

    static func config(broker: String = "mqtt://b:1883", username: String = "dev1", passwordFile: String = "") -> DaemonConfig {
        var config = DaemonConfig()
        config.mqtt.broker = broker
        config.mqtt.username = username
        config.mqtt.passwordFile = passwordFile
        return config
    }

    static func resolve(_ config: DaemonConfig, environment: [String: String] = [:], files: [String: String] = [:]) throws(ConfigError)
        -> String?
    {
        try ConfigLoader.resolveMQTTPassword(config, file: "w.toml", environment: environment, readFile: { files[$0] })?.revealed
    }

    @Test("the password: the systemd credential first, then password_file (trimmed); none without a broker")
    func passwordOrder() throws {
        let files = ["/creds/mqtt-password": "from-credential\n", "/etc/pw": " from-file \n"]
        #expect(
            try Self.resolve(Self.config(passwordFile: "/etc/pw"), environment: ["CREDENTIALS_DIRECTORY": "/creds"], files: files)
                == "from-credential")
        #expect(
            try Self.resolve(Self.config(passwordFile: "/etc/pw"), environment: ["CREDENTIALS_DIRECTORY": "/nowhere"], files: files)
                == "from-file")
        #expect(try Self.resolve(Self.config(), files: files) == nil)
        #expect(try Self.resolve(Self.config(broker: "", passwordFile: "/missing"), files: files) == nil)
    }

    @Test("an unreadable or empty password_file, or a password without a user name, is a configuration error that never shows the password")
    func passwordErrors() {
        let files = ["/etc/empty": " \n", "/etc/pw": "s3cret"]
        for (config, key) in [
            (Self.config(passwordFile: "/missing"), "mqtt.password_file"),
            (Self.config(passwordFile: "/etc/empty"), "mqtt.password_file"),
            (Self.config(username: "", passwordFile: "/etc/pw"), "mqtt.username"),
        ] {
            do {
                _ = try Self.resolve(config, files: files)
                Issue.record("expected an error for \(key)")
            } catch {
                #expect(error.problems.map(\.keyPath) == [key])
                #expect(!error.description.contains("s3cret"))
            }
        }
    }
}
