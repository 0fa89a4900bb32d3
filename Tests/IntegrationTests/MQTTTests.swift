import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real Mosquitto, the stand-in for OpenWeatherMap, and weatherd publishing to the broker as `dev1`.
struct MQTTDaemon {
    static let device = "dev1"
    static let prefix = "weatherd/dev1"
    static let london = "owm:2643743"
    static let paris = "owm:2988507"

    let directory: TemporaryDirectory
    let replay: ReplayServer
    let broker: MosquittoBroker
    let daemon: DaemonProcess

    /// Starts everything and waits until weatherd says it is connected to the broker.
    /// `brokerConfig`: more lines for the broker's config file (`log_type all`: every packet in its log).
    init(
        cities: [String] = ["London"], mqttLines: [String] = [], brokerConfig: [String] = [], airQuality: Bool = false,
        alertsLines: [String] = []
    ) async throws {
        directory = try TemporaryDirectory()
        replay = try await ReplayServer.start()
        broker = try await MosquittoBroker.start(in: directory, config: brokerConfig)
        var setup = DaemonSetup(directory: directory, replay: replay, cities: cities)
        setup.airQuality = airQuality
        setup.useBroker(broker, device: Self.device, mqttLines)
        setup.alertsLines = alertsLines
        daemon = try await DaemonProcess.start(setup)
        _ = try await daemon.process.waitForLine(containing: "MQTT: connected to the broker", on: \.stderr)
    }

    func topic(_ name: String) -> String { "\(Self.prefix)/\(name)" }

    /// The retained overlays, state and status, parsed where JSON.
    func retained() async throws -> (status: String?, overlays: JSONValue?, state: JSONValue?) {
        let messages = try await broker.retained([topic("status"), topic("overlays"), topic("state")])
        return (
            messages[topic("status")], try messages[topic("overlays")].map { try JSONValue.parse(Array($0.utf8)) },
            try messages[topic("state")].map { try JSONValue.parse(Array($0.utf8)) }
        )
    }

    /// The lines of `subscriber` (a `mosquitto_sub -F`) once one contains `text`.
    func waitFor(_ text: String, from subscriber: ChildProcess) async throws -> String {
        try await subscriber.waitForLine(containing: text, on: \.stdout, timeout: .seconds(20))
    }
}

/// The feature ids of an overlays FeatureCollection.
private func featureIDs(_ overlays: JSONValue?) -> Set<String> {
    Set(overlays?["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
}

@Suite("MQTT: publishing to a real Mosquitto", .serialized)
struct MQTTTests {
    @Test("after start the broker holds status online, the overlays and the state, retained")
    func retainedAfterStart() async throws {
        let fixture = try await MQTTDaemon()
        // The watched city settles, then its overlays reach the broker.
        let subscriber = try await fixture.broker.subscriber([fixture.topic("overlays")])
        defer { subscriber.send(SIGKILL) }
        _ = try await fixture.waitFor(MQTTDaemon.london, from: subscriber)
        let (status, overlays, state) = try await fixture.retained()
        #expect(status == "online")
        #expect(overlays?["type"] == "FeatureCollection")
        #expect(featureIDs(overlays).contains(MQTTDaemon.london))
        #expect(state?["phase"] != nil && state?["running"] != nil)
        let (exit, _) = try await fixture.daemon.terminate()
        #expect(exit == 0)
        // A clean shutdown leaves `offline`, published by weatherd itself: the Last Will would leave
        // the same, so the broker's log must show a DISCONNECT, not a connection dropped.
        let end = try await fixture.broker.waitForLog("the end of dev1's connection") { lines in
            lines.first {
                $0.contains("Client \(MQTTDaemon.device) ") && ($0.contains("disconnect") || $0.contains("closed its connection"))
            }
        }
        #expect(end.hasSuffix("Client \(MQTTDaemon.device) disconnected."), "\(end)")
        #expect(try await fixture.broker.retained([fixture.topic("status")])[fixture.topic("status")] == "offline")
    }

    @Test("a socket search changes the overlays on the broker (focus on the result)")
    func searchChangesOverlays() async throws {
        let fixture = try await MQTTDaemon()
        let subscriber = try await fixture.broker.subscriber([fixture.topic("overlays")])
        defer { subscriber.send(SIGKILL) }
        // The watched city's round first: its overlays, which never move the map, would otherwise
        // replace the search's on the broker if they came just after them.
        _ = try await fixture.waitFor(MQTTDaemon.london, from: subscriber)
        let result = try await fixture.daemon.call("search", ["city": "Paris"])
        #expect(result["id"]?.stringValue == MQTTDaemon.paris)
        let line = try await fixture.waitFor(MQTTDaemon.paris, from: subscriber)
        let overlays = try JSONValue.parse(Array(line.dropFirst(fixture.topic("overlays").count + 1).utf8))
        #expect(overlays["focus"]?.arrayValue?.count == 2)
        #expect(try await fixture.retained().overlays.map(featureIDs)?.contains(MQTTDaemon.paris) == true)
    }

    @Test("a request over MQTT 5 is answered on its response topic, with its correlation data")
    func requestMQTT5() async throws {
        let fixture = try await MQTTDaemon()
        // mosquitto_rr: the MQTT 5 request/response client.
        let answered = try await runCommand(
            "/usr/bin/mosquitto_rr",
            fixture.broker.clientOptions() + [
                "-t", fixture.topic("request"), "-e", "replies/rr", "-W", "20",
                "-m", #"{"jsonrpc":"2.0","id":7,"method":"search","params":{"city":"Paris"}}"#,
            ],
            environment: TestEnvironment.childEnvironment(), timeout: .seconds(30))
        #expect(answered.status == 0, "\(answered)")
        let reply = try JSONValue.parse(Array(answered.stdout.utf8))
        #expect(reply["id"] == .integer(7))
        #expect(reply["result"]?["id"]?.stringValue == MQTTDaemon.paris)

        let subscriber = try await fixture.broker.subscriber(["replies/corr"], format: "%D|%p", extra: ["-V", "5"])
        defer { subscriber.send(SIGKILL) }
        try await fixture.broker.publish(
            fixture.topic("request"), #"{"jsonrpc":"2.0","id":"c","method":"cities"}"#,
            extra: ["-V", "5", "-D", "publish", "response-topic", "replies/corr", "-D", "publish", "correlation-data", "req-42"])
        let line = try await fixture.waitFor("req-42|", from: subscriber)
        let body = try JSONValue.parse(Array(line.split(separator: "|", maxSplits: 1)[1].utf8))
        #expect(body["id"] == "c")
        #expect(body["result"]?["cities"] == .array(["London"]))
        // Administration and subscriptions are not for MQTT requesters.
        for method in ["reload", "watch"] {
            let refused = try await runCommand(
                "/usr/bin/mosquitto_rr",
                fixture.broker.clientOptions() + [
                    "-t", fixture.topic("request"), "-e", "replies/rr", "-W", "20",
                    "-m", #"{"jsonrpc":"2.0","id":1,"method":""# + method + #""}"#,
                ],
                environment: TestEnvironment.childEnvironment(), timeout: .seconds(30))
            #expect(try JSONValue.parse(Array(refused.stdout.utf8))["error"]?["code"] == .integer(-32601), "\(refused)")
        }
    }

    @Test("a request over MQTT 3.1.1 is answered on P/D/reply; one over 64 KiB is dropped with a log line")
    func requestMQTT311() async throws {
        let fixture = try await MQTTDaemon()
        let subscriber = try await fixture.broker.subscriber([fixture.topic("reply")], extra: ["-V", "311"])
        defer { subscriber.send(SIGKILL) }
        let big = #"{"jsonrpc":"2.0","id":1,"method":"search","params":{"city":""# + String(repeating: "x", count: 70_000) + #""}}"#
        try await fixture.broker.publish(fixture.topic("request"), big, extra: ["-V", "311"])
        try await fixture.broker.publish(fixture.topic("request"), #"{"jsonrpc":"2.0","id":311,"method":"version"}"#, extra: ["-V", "311"])
        let line = try await fixture.waitFor(#""id":311"#, from: subscriber)
        let reply = try JSONValue.parse(Array(line.dropFirst(fixture.topic("reply").count + 1).utf8))
        #expect(reply["result"]?["protocol"] == .integer(1))
        _ = try await fixture.daemon.process.waitForLine(containing: "MQTT: dropped a request of 70", on: \.stderr)
        // The oversized request got no reply: the only reply is the version's.
        #expect(!subscriber.stdoutText.contains(#""id":1,"#), "\(subscriber.stdoutText)")
    }

    @Test("requests over MQTT enter the search stream in the order they arrived: search London, then Paris, leaves Paris")
    func requestsInArrivalOrder() async throws {
        let fixture = try await MQTTDaemon(cities: [], brokerConfig: ["log_type all"])
        let replies = try await fixture.broker.subscriber([fixture.topic("reply")], format: "%p")
        defer { replies.send(SIGKILL) }
        // The first request: a batch whose search for London enters the stream only after the
        // element before it (adding Berlin, looked up first) is done, and Berlin's lookup hangs.
        try await fixture.replay.setFault(city: "Berlin", "hang")
        try await fixture.broker.publish(
            fixture.topic("request"),
            #"[{"jsonrpc":"2.0","id":1,"method":"cities.add","params":{"city":"Berlin"}},"#
                + #"{"jsonrpc":"2.0","id":2,"method":"search","params":{"city":"London"}}]"#,
            extra: ["-q", "1"])
        try await fixture.replay.waitForHanging(1)
        // The second, a search for Paris, reaches weatherd (it acknowledges it) while the first hangs.
        try await fixture.broker.publish(
            fixture.topic("request"), #"{"jsonrpc":"2.0","id":3,"method":"search","params":{"city":"Paris"}}"#, extra: ["-q", "1"])
        try await fixture.broker.waitForLog(containing: "Received PUBACK from \(MQTTDaemon.device)", count: 2)
        try await fixture.replay.clearFaults(city: "Berlin")
        _ = try await fixture.waitFor(#""id":3"#, from: replies)
        _ = try await fixture.waitFor(#""id":2"#, from: replies)
        // Both settled before their replies: the latest input is the one that arrived last.
        let state = try await fixture.daemon.call("state")
        #expect(state["input"]?["city"] == "Paris", "\(state)")
        let overlays = try await fixture.daemon.call("overlays")
        #expect(featureIDs(overlays).contains(MQTTDaemon.paris) && !featureIDs(overlays).contains(MQTTDaemon.london), "\(overlays)")
    }

    @Test("overlays larger than the broker takes: logged once and left until they change; the state and the replies still go out")
    func oversizePayload() async throws {
        // The broker announces its packet limit (MQTT 5): five cities' overlays are over it, the state is not.
        let fixture = try await MQTTDaemon(cities: ["London", "Paris", "Berlin", "Seoul", "Tokyo"], brokerConfig: ["max_packet_size 1500"])
        let state = try await fixture.broker.subscriber([fixture.topic("state")])
        defer { state.send(SIGKILL) }
        // The first round of the cities has settled and its state reached the broker.
        _ = try await fixture.waitFor(#""running":false"#, from: state)
        let warning = "MQTT: cannot publish \(fixture.topic("overlays"))"
        let warned = fixture.daemon.stderrText.components(separatedBy: warning).count - 1
        #expect(warned >= 1, "\(fixture.daemon.stderrText)")
        // Each request wakes the publisher: its reply goes out, the overlays are not tried again.
        for id in 1...3 {
            let answered = try await runCommand(
                "/usr/bin/mosquitto_rr",
                fixture.broker.clientOptions() + [
                    "-t", fixture.topic("request"), "-e", "replies/rr", "-W", "20",
                    "-m", #"{"jsonrpc":"2.0","id":"# + "\(id)" + #","method":"version"}"#,
                ],
                environment: TestEnvironment.childEnvironment(), timeout: .seconds(30))
            #expect(answered.status == 0, "\(answered)")
            #expect(try JSONValue.parse(Array(answered.stdout.utf8))["id"] == .integer(Int64(id)), "\(answered)")
        }
        #expect(fixture.daemon.stderrText.components(separatedBy: warning).count - 1 == warned, "\(fixture.daemon.stderrText)")
    }

    @Test("two weatherd with one client id: the broker gives the session to the newer; the older's log hints at the shared client id")
    func sessionTakeover() async throws {
        let fixture = try await MQTTDaemon(cities: [])
        let other = try TemporaryDirectory()
        var setup = DaemonSetup(directory: other, replay: fixture.replay)
        setup.useBroker(fixture.broker, device: MQTTDaemon.device)
        let second = try await DaemonProcess.start(setup)
        let line = try await fixture.daemon.process.waitForLine(containing: "MQTT: the connection to", on: \.stderr, timeout: .seconds(20))
        // Mosquitto 2.0 closes the older connection without a DISCONNECT (no "session taken over"
        // reason code): the hint comes from the connection lost soon after it was accepted.
        #expect(line.contains("after it was accepted") && line.contains("client id \(MQTTDaemon.device)"), "\(line)")
        _ = try await second.terminate()
    }

    @Test("SIGKILL: the broker publishes the Last Will, offline")
    func lastWill() async throws {
        let fixture = try await MQTTDaemon()
        let subscriber = try await fixture.broker.subscriber([fixture.topic("status")])
        defer { subscriber.send(SIGKILL) }
        _ = try await fixture.waitFor("status online", from: subscriber)
        try await fixture.daemon.kill()
        _ = try await fixture.waitFor("status offline", from: subscriber)
        #expect(try await fixture.broker.retained([fixture.topic("status")])[fixture.topic("status")] == "offline")
    }

    @Test("the broker restarted: weatherd reconnects and publishes the latest overlays and state, made while it was away")
    func reconnect() async throws {
        let fixture = try await MQTTDaemon()
        let port = fixture.broker.port
        try await fixture.broker.stop()
        _ = try await fixture.daemon.process.waitForLine(containing: "MQTT: the connection to", on: \.stderr)
        // While the broker is away: two searches; only the latest counts.
        _ = try await fixture.daemon.call("search", ["city": "London"])
        _ = try await fixture.daemon.call("search", ["city": "Paris"])
        let restarted = try await MosquittoBroker.start(in: fixture.directory, port: port, config: ["log_type all"])
        let status = try await restarted.subscriber([fixture.topic("status"), fixture.topic("overlays")], format: "%t %p")
        defer { status.send(SIGKILL) }
        _ = try await status.waitForLine(containing: "status online", on: \.stdout, timeout: .seconds(40))
        _ = try await status.waitForLine(containing: MQTTDaemon.paris, on: \.stdout, timeout: .seconds(20))
        let messages = try await restarted.retained([fixture.topic("overlays"), fixture.topic("state")])
        let overlays = try JSONValue.parse(Array((messages[fixture.topic("overlays")] ?? "").utf8))
        let state = try JSONValue.parse(Array((messages[fixture.topic("state")] ?? "").utf8))
        #expect(overlays["focus"]?.arrayValue?.count == 2)
        #expect(state["input"]?["city"] == "Paris")
        // One overlays message after the reconnect: the latest, not the changes made meanwhile. The
        // broker's log counts what weatherd sent it (a subscriber could have come after a publish).
        let published = restarted.logLines(containing: "Received PUBLISH from \(MQTTDaemon.device) ")
            .filter { $0.contains("'\(fixture.topic("overlays"))'") }
        #expect(published.count == 1, "\(published)")
        withExtendedLifetime(restarted) {}
    }

    @Test("the broker stopped or frozen: socket searches are answered as before (the figures are printed)")
    func brokerDownSearches() async throws {
        let fixture = try await MQTTDaemon(cities: [])
        let rounds = 20
        func searches() async throws -> Duration {
            let started = ContinuousClock.now
            try await fixture.daemon.withConnection { connection in
                for index in 0..<rounds {
                    let result = try await connection.call("search", ["city": index.isMultiple(of: 2) ? "London" : "Paris"])
                    #expect(result["type"] == "Feature")
                }
            }
            return ContinuousClock.now - started
        }
        let up = try await searches()
        fixture.broker.process.send(SIGSTOP)  // frozen: the connection stays open, nothing is acknowledged
        let frozen = try await searches()
        fixture.broker.process.send(SIGCONT)
        try await fixture.broker.stop()
        _ = try await fixture.daemon.process.waitForLine(containing: "MQTT: the connection to", on: \.stderr)
        let down = try await searches()
        print("MQTT: \(rounds) socket searches: broker up \(up), broker frozen \(frozen), broker stopped \(down)")
        #expect(try await fixture.daemon.call("version")["protocol"] == .integer(1))
    }

    @Test("Home Assistant discovery: the documented required fields, availability from P/D/status; removing a city removes its entities")
    func homeAssistant() async throws {
        let fixture = try await MQTTDaemon(mqttLines: ["homeassistant = true"])
        let subscriber = try await fixture.broker.subscriber(["homeassistant/#", fixture.topic("place/#")], format: "%t %l %p")
        defer { subscriber.send(SIGKILL) }
        let city = "city_owm_2643743"
        _ = try await fixture.waitFor("place/\(city) ", from: subscriber)
        let measures = ["temperature", "humidity", "wind_speed", "condition"]
        let topics = measures.flatMap {
            ["homeassistant/sensor/dev1/latest_\($0)/config", "homeassistant/sensor/dev1/\(city)_\($0)/config"]
        }
        let configs = try await fixture.broker.retained(topics)
        #expect(configs.count == 8)
        var uniqueIDs: Set<String> = []
        for (topic, text) in configs {
            let config = try JSONValue.parse(Array(text.utf8))
            // MQTT sensor: state_topic is required; unique_id and device (identifiers) put it in the
            // device registry; availability from the status topic.
            #expect(config["state_topic"]?.stringValue?.hasPrefix(MQTTDaemon.prefix + "/place/") == true, "\(topic)")
            #expect(config["unique_id"]?.stringValue.map { uniqueIDs.insert($0).inserted } == true, "\(topic)")
            #expect(config["name"]?.stringValue?.isEmpty == false)
            #expect(config["value_template"]?.stringValue?.hasPrefix("{{ value_json.") == true)
            #expect(config["availability_topic"] == .string(fixture.topic("status")))
            #expect(config["payload_available"] == "online" && config["payload_not_available"] == "offline")
            #expect(config["device"]?["identifiers"] == .array(["weatherd_dev1"]))
            if topic.contains("temperature") { #expect(config["device_class"] == "temperature" && config["unit_of_measurement"] == "°C") }
            if topic.contains("humidity") { #expect(config["device_class"] == "humidity" && config["unit_of_measurement"] == "%") }
            if topic.contains("wind_speed") { #expect(config["device_class"] == "wind_speed" && config["unit_of_measurement"] == "m/s") }
        }
        let place = try await fixture.broker.retained([fixture.topic("place/\(city)")])
        let weather = try JSONValue.parse(Array((place[fixture.topic("place/\(city)")] ?? "").utf8))
        #expect(weather["temperature"]?.doubleValue != nil && weather["name"] == "London")

        // The latest interactive place gets its weather.
        _ = try await fixture.daemon.call("search", ["city": "Paris"])
        _ = try await fixture.waitFor(#"place/latest "#, from: subscriber)

        // Removing the city empties its discovery topics (Home Assistant removes the entities).
        _ = try await fixture.daemon.call("cities.remove", ["city": "London"])
        for measure in measures {
            _ = try await fixture.waitFor("homeassistant/sensor/dev1/\(city)_\(measure)/config 0 ", from: subscriber)
        }
        _ = try await fixture.waitFor(fixture.topic("place/\(city)") + " 0 ", from: subscriber)
    }

    @Test(
        "Home Assistant discovery with air quality: each watched city's AQI sensor (device_class aqi) reads the index from its place topic")
    func homeAssistantAirQuality() async throws {
        let fixture = try await MQTTDaemon(mqttLines: ["homeassistant = true"], airQuality: true)
        let subscriber = try await fixture.broker.subscriber(["homeassistant/#", fixture.topic("place/#")], format: "%t %l %p")
        defer { subscriber.send(SIGKILL) }
        let city = "city_owm_2643743"
        _ = try await fixture.waitFor("homeassistant/sensor/dev1/\(city)_aqi/config ", from: subscriber)
        _ = try await fixture.waitFor("place/\(city) ", from: subscriber)
        let topic = "homeassistant/sensor/dev1/\(city)_aqi/config"
        let config = try JSONValue.parse(Array((try await fixture.broker.retained([topic])[topic] ?? "").utf8))
        #expect(config["device_class"] == "aqi" && config["state_topic"] == .string(fixture.topic("place/\(city)")), "\(config.serialized)")
        #expect(config["value_template"] == "{{ value_json.air_quality.european_aqi if value_json.air_quality else None }}")
        #expect(config["availability_topic"] == .string(fixture.topic("status")))
        let place = try await fixture.broker.retained([fixture.topic("place/\(city)")])
        let weather = try JSONValue.parse(Array((place[fixture.topic("place/\(city)")] ?? "").utf8))
        #expect(weather["air_quality"]?["european_aqi"]?.doubleValue != nil, "\(weather.serialized)")
        // The latest place's sensors go out before the cities' (one batch): none of them is an AQI sensor.
        #expect(subscriber.stdoutText.contains("latest_temperature/config") && !subscriber.stdoutText.contains("latest_aqi"))
    }
}

extension MQTTTests {
    @Test(
        "Home Assistant: a watched city's weather alert binary sensor (safety), on while an alert is in force there, the alerts its attributes"
    )
    func homeAssistantAlert() async throws {
        let fixture = try await MQTTDaemon(
            cities: ["Norman,US"], mqttLines: ["homeassistant = true"], alertsLines: ["refresh = \"1s\""])
        let (status, body) = try await httpRequest("POST", port: fixture.replay.port, target: "/_nws?ends_in=3600")
        #expect(status == 200, "\(body)")
        let subscriber = try await fixture.broker.subscriber(
            ["homeassistant/binary_sensor/#", fixture.topic("place/#")], format: "%t %l %p")
        defer { subscriber.send(SIGKILL) }
        let config = try await fixture.waitFor("_alert/config ", from: subscriber)
        let configJSON = try JSONValue.parse(Array(String(config.split(separator: " ", maxSplits: 2)[2]).utf8))
        #expect(configJSON["device_class"] == "safety" && configJSON["name"] == "Norman weather alert", "\(config)")
        #expect(configJSON["value_template"] == "{{ 'ON' if value_json.alerts else 'OFF' }}")
        #expect(configJSON["availability_topic"] == .string(fixture.topic("status")))
        let stateTopic = try #require(configJSON["state_topic"]?.stringValue)
        // The city's place payload, once its alerts are known: the one the sensor reads.
        let place = try await fixture.waitFor("Severe Thunderstorm Warning", from: subscriber)
        #expect(place.hasPrefix(stateTopic + " "), "\(place)")
        let properties = try JSONValue.parse(Array(String(place.split(separator: " ", maxSplits: 2)[2]).utf8))
        #expect(properties["alerts"]?.arrayValue?.map { $0["severity"] } == ["Severe"], "\(place)")
    }
}

@Suite("MQTT: password authentication", .serialized)
struct MQTTAuthTests {
    @Test("a wrong password is refused (and said so), the right one (from LoadCredential=) connects; the password is in no log")
    func passwords() async throws {
        let directory = try TemporaryDirectory()
        let replay = try await ReplayServer.start()
        let broker = try await MosquittoBroker.start(in: directory, users: ["dev1": "right-s3cret"])
        let wrongFile = try directory.write("wrong-password", "wrong-s3cret\n")

        var wrong = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        wrong.useBroker(broker, device: "dev1", ["username = \"dev1\"", "password_file = \"\(wrongFile)\""])
        let refused = try await DaemonProcess.start(wrong)
        _ = try await refused.process.waitForLine(containing: "MQTT: cannot connect to \(broker.url)", on: \.stderr)
        #expect(refused.stderrText.contains("refused"), "\(refused.stderrText)")
        #expect(try await refused.call("version")["protocol"] == .integer(1))  // still serving
        _ = try await refused.terminate()
        #expect(!refused.stderrText.contains("wrong-s3cret"))

        // The right password through systemd's credentials directory, which wins over password_file.
        let credentials = directory.file("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try "right-s3cret\n".write(toFile: credentials + "/mqtt-password", atomically: true, encoding: .utf8)
        let accepted = try await DaemonProcess.start(wrong, environment: ["CREDENTIALS_DIRECTORY": credentials])
        _ = try await accepted.process.waitForLine(containing: "MQTT: connected to the broker", on: \.stderr)
        let status = try await broker.retained(["weatherd/dev1/status"], user: ("dev1", "right-s3cret"))
        #expect(status["weatherd/dev1/status"] == "online")
        let check = try await runWeatherd(
            ["--check-config", "--config", wrong.configPath], environment: ["CREDENTIALS_DIRECTORY": credentials])
        _ = try await accepted.terminate()
        for output in [accepted.stderrText, check.stdout, check.stderr] {
            #expect(!output.contains("s3cret"), "\(output)")
        }
        withExtendedLifetime(replay) {}
    }
}

@Suite("MQTT: shutdown while connecting")
struct MQTTShutdownTests {
    @Test("SIGTERM while the broker's name is still being resolved: the daemon exits at once, without waiting for the resolver")
    func sigtermWhileResolving() async throws {
        let directory = try TemporaryDirectory()
        // glibc's resolver reads the file named by HOSTALIASES for a name without dots: a FIFO here,
        // which this test opens for writing and never writes to, so the resolution of the broker's
        // name (by libmosquitto, on the publisher's thread) hangs until the test closes it.
        let aliases = directory.file("hostaliases")
        guard mkfifo(aliases, 0o600) == 0 else { throw ChildProcessError(message: "mkfifo: \(String(cString: strerror(errno)))") }
        var setup = DaemonSetup(directory: directory, replay: nil)
        setup.mqttLines = ["broker = \"mqtt://weatherdbrokerhangs:1883\"", "client_id = \"dev1\""]
        let daemon = try await DaemonProcess.start(setup, environment: ["HOSTALIASES": aliases])
        let writer = try await openFIFOForWriting(aliases, timeout: .seconds(20))
        defer { close(writer) }
        // The daemon's resolver has the FIFO open: it waits for a line that does not come.
        let (status, _) = try await daemon.terminate()
        #expect(status == 0, "\(daemon.stderrText)")
        #expect(!daemon.stderrText.contains("MQTT: connected"))
    }
}

@Suite("MQTT: a broker that does not answer")
struct MQTTSilentBrokerTests {
    @Test("a broker that takes the connection but never answers CONNECT: the attempt ends, said so, and the daemon keeps serving")
    func connectTimeout() async throws {
        // A listening socket that nobody accepts on: the kernel completes the TCP handshake, nothing answers.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0 && listen(listener, 8) == 0
            }
        }
        #expect(listening)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: nil)
        setup.mqttLines = ["broker = \"mqtt://127.0.0.1:\(port)\"", "client_id = \"dev1\"", "keepalive = \"20s\""]
        let daemon = try await DaemonProcess.start(setup)
        let line = try await daemon.process.waitForLine(
            containing: "MQTT: cannot connect to mqtt://127.0.0.1:\(port)", on: \.stderr, timeout: .seconds(30))
        // The attempt's own limit: the keep-alive, 20 s, but at most 10 s.
        #expect(line.contains("no answer from the broker within 10"), "\(line)")
        #expect(try await daemon.call("version")["protocol"] == .integer(1))
        let (status, _) = try await daemon.terminate()
        #expect(status == 0)
    }
}

/// Opens the FIFO `path` for writing; returns once a reader has opened it. Throws when none did
/// within `timeout` (the blocked open is then ended by opening the FIFO for reading here).
private func openFIFOForWriting(_ path: String, timeout: Duration) async throws -> Int32 {
    enum Opened: Sendable {
        case writer(Int32)
        case timedOut(reader: Int32)
    }
    let results = await withTaskGroup(of: Opened?.self) { group in
        group.addTask {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: .writer(open(path, O_WRONLY | O_CLOEXEC))) }
            }
        }
        group.addTask {
            guard (try? await Task.sleep(for: timeout)) != nil else { return nil }
            return .timedOut(reader: open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC))
        }
        var results: [Opened] = []
        if let first = await group.next(), let first { results.append(first) }
        group.cancelAll()
        for await result in group { if let result { results.append(result) } }
        return results
    }
    var writer: Int32 = -1
    var timedOut = false
    for result in results {
        switch result {
        case .writer(let fd): writer = fd
        case .timedOut(let reader):
            timedOut = true
            if reader >= 0 { close(reader) }
        }
    }
    guard !timedOut, writer >= 0 else {
        if writer >= 0 { close(writer) }
        throw ChildProcessError(
            message: "nobody opened \(path) for reading within \(timeout) (does this system's resolver read HOSTALIASES?)")
    }
    return writer
}

@Suite("MQTT: configuration errors")
struct MQTTConfigCheckTests {
    @Test(
        "a bad [mqtt] value or an unreadable password_file: exit 78 with FILE:LINE:COLUMN: key.path: message (FILE: key.path: for the file it names), never the password"
    )
    func badMQTTConfig() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "weatherd.toml",
            """
            [openweathermap]
            api_key = "k"

            [mqtt]
            broker = "tcp://broker:1883"
            client_id = "a/b"
            keepalive = "1s"
            colour = "blue"
            """)
        let result = try await runWeatherd(["--check-config", "--config", file])
        #expect(result.status == 78, "\(result)")
        for (line, key) in [(5, "mqtt.broker"), (6, "mqtt.client_id"), (7, "mqtt.keepalive"), (8, "mqtt.colour")] {
            #expect(result.stderr.contains("\(file):\(line):1: \(key): "), "\(key): \(result)")
        }

        let noUser = try directory.write(
            "nouser.toml",
            """
            [openweathermap]
            api_key = "k"

            [mqtt]
            broker = "mqtt://127.0.0.1:1883"
            password_file = "\(try directory.write("pw", "hunter2-secret\n"))"
            """)
        let refused = try await runWeatherd(["--config", noUser])
        #expect(refused.status == 78, "\(refused)")
        #expect(refused.stderr.contains("\(noUser): mqtt.username: "), "\(refused)")
        #expect(!refused.stderr.contains("hunter2"))

        let missing = try directory.write(
            "missing.toml",
            """
            [openweathermap]
            api_key = "k"

            [mqtt]
            broker = "mqtt://127.0.0.1:1883"
            username = "u"
            password_file = "\(directory.file("nowhere"))"
            """)
        let unreadable = try await runWeatherd(["--check-config", "--config", missing])
        #expect(unreadable.status == 78, "\(unreadable)")
        #expect(unreadable.stderr.contains("\(missing): mqtt.password_file: cannot read"), "\(unreadable)")
    }
}

@Suite("MQTT: TLS")
struct MQTTTLSTests {
    @Test("mqtts:// checks the broker's certificate against the system's CA store: a self-signed one is refused, the daemon keeps serving")
    func untrustedCertificate() async throws {
        let directory = try TemporaryDirectory()
        let replay = try await ReplayServer.start()
        let tls = try await MosquittoBroker.selfSignedCertificate(in: directory)
        let broker = try await MosquittoBroker.start(in: directory, tls: tls)
        // The listener does speak TLS: a client that trusts this certificate gets through.
        let trusted = try await runCommand(
            "/usr/bin/mosquitto_pub", broker.clientOptions() + ["--cafile", tls.certificate, "-t", "probe", "-m", "x"],
            environment: TestEnvironment.childEnvironment())
        #expect(trusted.status == 0, "\(trusted)")

        var setup = DaemonSetup(directory: directory, replay: replay, cities: ["London"])
        setup.mqttLines = ["broker = \"mqtts://127.0.0.1:\(broker.port)\"", "client_id = \"dev1\""]
        let daemon = try await DaemonProcess.start(setup)
        let line = try await daemon.process.waitForLine(
            containing: "MQTT: cannot connect to mqtts://127.0.0.1:\(broker.port)", on: \.stderr)
        #expect(line.contains("TLS"), "\(line)")
        #expect(try await daemon.call("version")["protocol"] == .integer(1))
        #expect(!daemon.stderrText.contains("MQTT: connected"))
        _ = try await daemon.terminate()
    }
}
