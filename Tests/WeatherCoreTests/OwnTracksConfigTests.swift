import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: [owntracks]")
struct OwnTracksConfigTests {
    /// With a broker, so that the MQTT topics may be given.
    static let broker = "mqtt.broker = \"mqtt://127.0.0.1:1883\"\n"

    static let cases: [RangeCase] = [
        .ok(broker + #"owntracks.mqtt_topics = ["owntracks/+/+"]"#),
        .ok(broker + ##"owntracks.mqtt_topics = ["owntracks/#", "fleet/+/+"]"##),
        .ok("owntracks.mqtt_topics = []"), .bad(broker + #"owntracks.mqtt_topics = "owntracks/+/+""#, at: "owntracks.mqtt_topics"),
        .bad(broker + #"owntracks.mqtt_topics = [""]"#, at: "owntracks.mqtt_topics[0]"),
        .bad(broker + #"owntracks.mqtt_topics = ["own+/x"]"#, at: "owntracks.mqtt_topics[0]"),
        .bad(broker + #"owntracks.mqtt_topics = ["a/+", 3]"#, at: "owntracks.mqtt_topics[1]"),
        .bad(broker + #"owntracks.mqtt_topics = ["a/+", "a/+"]"#, at: "owntracks.mqtt_topics[1]"),
        .ok("owntracks.http = false"), .bad(#"owntracks.http = "yes""#),
        .ok(#"owntracks.follow = "alice/phone""#), .ok(#"owntracks.follow = """#), .bad(#"owntracks.follow = "alice""#),
        .bad(#"owntracks.follow = "a/b/c""#), .bad(#"owntracks.follow = "+/phone""#), .bad(#"owntracks.follow = "/phone""#),
        .ok("owntracks.devices = false"), .bad("owntracks.devices = 1"),
        .ok("owntracks.device_distance = 0"), .ok("owntracks.device_distance = 250.5"), .bad("owntracks.device_distance = -1"),
        .ok(#"owntracks.device_ttl = "1d""#), .bad(#"owntracks.device_ttl = "0s""#), .bad(#"owntracks.device_ttl = "31d""#),
        .ok(#"owntracks.secret_file = "/etc/weatherd/owntracks-secret""#), .bad("owntracks.secret_file = true"),
        .bad(#"owntracks.secret = "x""#, at: "owntracks.secret"),
    ]

    @Test("each key's type and range", arguments: cases)
    func bound(_ range: RangeCase) {
        if range.accepted {
            #expect(throws: Never.self) { try ConfigLoader.parse(range.toml, file: configTestFile) }
        } else {
            #expect(configProblems(range.toml).map(\.keyPath) == [range.keyPath])
        }
    }

    @Test("the defaults are the contract's: nothing subscribed, no HTTP mode, devices shown")
    func defaults() throws {
        let ownTracks = try parseConfig("").ownTracks
        #expect(ownTracks == OwnTracksConfig())
        #expect(ownTracks.mqttTopics.isEmpty && !ownTracks.http && ownTracks.follow.isEmpty && ownTracks.devices)
        #expect(ownTracks.deviceDistance == 1000 && ownTracks.deviceTTL == .seconds(6 * 3600) && ownTracks.secretFile.isEmpty)
        #expect(!ownTracks.enabled)
    }

    @Test("an unknown key is an error at its FILE:LINE:COLUMN, with a suggestion")
    func unknownKey() {
        #expect(
            configProblemLines("[owntracks]\nhttp = true\nfolow = \"a/b\"\n") == [
                "test.toml:3:1: owntracks.folow: unknown key; did you mean `follow`?",
                "test.toml:2:1: owntracks.http: needs web.listen: POST /owntracks is served on the web listener",
            ])
    }

    @Test("mqtt_topics without mqtt.broker is an error at the key")
    func topicsWithoutBroker() {
        #expect(
            configProblemLines("[owntracks]\nmqtt_topics = [\"owntracks/+/+\"]\n") == [
                "test.toml:2:1: owntracks.mqtt_topics: needs mqtt.broker: the topics are subscribed on the [mqtt] connection"
            ])
    }

    @Test("a topic that overlaps weatherd's own P/# is an error at its element")
    func overlapsOwnTopics() {
        let text = """
            [mqtt]
            broker = "mqtt://127.0.0.1:1883"
            topic_prefix = "fleet/weatherd"
            [owntracks]
            mqtt_topics = ["owntracks/+/+", "fleet/#"]
            """
        #expect(
            configProblemLines(text) == [
                #"test.toml:5:33: owntracks.mqtt_topics[1]: overlaps weatherd's own topics "fleet/weatherd/#" (mqtt.topic_prefix), found "fleet/#""#
            ])
    }

    @Test("HTTP mode with a web listener, topics with a broker: accepted")
    func accepted() throws {
        let config = try parseConfig(
            """
            [web]
            listen = "127.0.0.1:0"
            [mqtt]
            broker = "mqtt://127.0.0.1:1883"
            [owntracks]
            mqtt_topics = ["owntracks/+/+"]
            http = true
            follow = "alice/phone"
            """)
        #expect(config.ownTracks.enabled && config.ownTracks.http && config.ownTracks.follow == "alice/phone")
        #expect(LocationService.Settings(config).isEnabled(.owntracks))
        #expect(!LocationService.Settings(DaemonConfig()).isEnabled(.owntracks))
    }

    @Test("the key: the credential first, then secret_file; trimmed; never in a message")
    func secret() throws {
        var config = DaemonConfig()
        config.ownTracks.secretFile = "/etc/weatherd/owntracks-secret"
        let files = ["/etc/weatherd/owntracks-secret": "file-s3cret\n", "/run/creds/owntracks-secret": " cred-s3cret "]
        let fromFile = try ConfigLoader.resolveOwnTracksSecret(config, file: "w.toml", environment: [:], readFile: { files[$0] })
        #expect(fromFile?.revealed == "file-s3cret")
        #expect("\(String(describing: fromFile))".contains("s3cret") == false)
        let fromCredential = try ConfigLoader.resolveOwnTracksSecret(
            config, file: "w.toml", environment: ["CREDENTIALS_DIRECTORY": "/run/creds"], readFile: { files[$0] })
        #expect(fromCredential?.revealed == "cred-s3cret")
        #expect(try ConfigLoader.resolveOwnTracksSecret(DaemonConfig(), file: "w.toml", environment: [:], readFile: { _ in nil }) == nil)
        #expect(throws: ConfigError.self) {
            try ConfigLoader.resolveOwnTracksSecret(config, file: "w.toml", environment: [:], readFile: { _ in nil })
        }
        #expect(throws: ConfigError.self) {
            try ConfigLoader.resolveOwnTracksSecret(config, file: "w.toml", environment: [:], readFile: { _ in "  \n" })
        }
    }
}
