import CSodium
import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// weatherd with a real Mosquitto, `mosquitto_pub` as the phones, `curl` as the app in HTTP mode,
/// owm-replay as OpenWeatherMap.
struct OwnTracksDaemon {
    /// The key of the encrypted fixture (Tests/Fixtures/README.md).
    static let secret = "weatherd-fixture-key"

    let directory: TemporaryDirectory
    let replay: ReplayServer
    let broker: MosquittoBroker?
    let daemon: DaemonProcess
    let webPort: Int

    /// Starts everything and waits until the daemon serves the web and (with a broker) is subscribed.
    /// `ownTracksLines` nil: MQTT topics `owntracks/+/+`, HTTP mode, `alice/phone` followed, the key.
    init(broker withBroker: Bool = true, webLines: [String] = [], ownTracksLines: [String]? = nil) async throws {
        directory = try TemporaryDirectory()
        replay = try await ReplayServer.start()
        broker = withBroker ? try await MosquittoBroker.start(in: directory) : nil
        let secretFile = try directory.write("owntracks-secret", Self.secret + "\n")
        var setup = DaemonSetup(directory: directory, replay: replay)
        if let broker { setup.useBroker(broker, device: "dev1") }
        setup.webLines = [#"listen = "127.0.0.1:0""#] + webLines
        setup.ownTracksLines =
            ownTracksLines ?? [
                withBroker ? #"mqtt_topics = ["owntracks/+/+"]"# : "", "http = true", #"follow = "alice/phone""#,
                "secret_file = \"\(secretFile)\"",
            ]
        daemon = try await DaemonProcess.start(setup)
        webPort = try await daemon.webPort()
        if withBroker {
            _ = try await daemon.process.waitForLine(
                containing: "MQTT: subscribed to the OwnTracks topics", on: \.stderr, timeout: .seconds(30))
        }
    }

    /// The phone: one message published with `mosquitto_pub`.
    func publish(_ device: String, _ payload: String) async throws {
        try await broker!.publish("owntracks/\(device)", payload)
    }

    /// `curl` as the app in HTTP mode: the status and the body.
    func post(_ payload: String, query: String = "", headers: [String] = []) async throws -> (status: Int, body: String) {
        let result = try await runCommand(
            "/usr/bin/curl",
            ["-sS", "-o", "-", "-w", "\n%{http_code}", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", payload]
                + headers.flatMap { ["-H", $0] } + ["http://127.0.0.1:\(webPort)/owntracks\(query)"],
            environment: TestEnvironment.childEnvironment())
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? -1, lines.dropLast().joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `weatherd_location_fixes_total{source="owntracks",accepted=…}`.
    func ownTracksFixes(accepted: Bool) async throws -> String? {
        let metrics = try await httpRequest(port: webPort, "/metrics").text
        return metrics.split(separator: "\n").first {
            $0.hasPrefix("weatherd_location_fixes_total{") && $0.contains(#"source="owntracks""#)
                && $0.contains(#"accepted="\#(accepted)""#)
        }.flatMap { $0.split(separator: " ").last.map(String.init) }
    }
}

/// A fixture's payload dated now (`tst`), as a phone sends it.
func freshOwnTracks(_ name: String) throws -> String {
    guard case .object(var object) = try JSONValue.parse(try Fixture.ownTracks(name)) else { throw ChildProcessError(message: "\(name)") }
    object["tst"] = .integer(Int64(Date().timeIntervalSince1970))
    return JSONValue.object(object).serialized
}

/// `plain` sealed as the app does: libsodium's secretbox, the key the secret padded to 32 bytes, a
/// random nonce before the ciphertext, in base64.
func sealedOwnTracks(_ plain: String, secret: String) -> String {
    precondition(sodium_init() >= 0)
    let key = Array(secret.utf8.prefix(32)) + [UInt8](repeating: 0, count: 32 - min(secret.utf8.count, 32))
    var nonce = [UInt8](repeating: 0, count: Int(crypto_secretbox_noncebytes()))
    randombytes_buf(&nonce, nonce.count)
    let message = Array(plain.utf8)
    var cipher = [UInt8](repeating: 0, count: message.count + Int(crypto_secretbox_macbytes()))
    _ = crypto_secretbox_easy(&cipher, message, UInt64(message.count), nonce, key)
    return #"{"_type":"encrypted","data":"\#(Data(nonce + cipher).base64EncodedString())"}"#
}

@Suite("OwnTracks: phones and vehicles over MQTT and HTTP", .serialized)
struct OwnTracksTests {
    @Test("MQTT: the followed phone is where locate looks; every device is a feature with its weather; an encrypted payload opens")
    func mqttDevices() async throws {
        let fixture = try await OwnTracksDaemon()
        let broker = try #require(fixture.broker)
        let overlays = try await broker.subscriber(["weatherd/dev1/overlays"])
        defer { overlays.send(SIGKILL) }

        try await fixture.publish("alice/phone", try freshOwnTracks("location-5s.json"))
        let located = try await fixture.daemon.call("locate", ["source": "owntracks", "max_age": .integer(600), "timeout": .integer(30)])
        #expect(located["properties"]?["fix"]?["source"] == "owntracks", "\(located.serialized)")
        #expect(located["properties"]?["fix"]?["device"] == "alice/phone")
        #expect(located["properties"]?["fix"]?["horizontal_error"]?.doubleValue == 9)
        let human = try await fixture.daemon.weatherctl(["locate", "--source", "owntracks", "--max-age", "600", "--timeout", "5"])
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.split(separator: "\n").dropFirst().first == "from owntracks alice/phone  ±9 m", "\(human)")

        // A fix without acc: no source of the fused location, still a device on the map.
        try await fixture.publish("bob/van", try freshOwnTracks("location-short.json"))
        // Encrypted with the configured key, as the app does.
        try await fixture.publish("carol/bike", sealedOwnTracks(try freshOwnTracks("location-sk.json"), secret: OwnTracksDaemon.secret))
        for id in ["device:alice/phone", "device:bob/van", "device:carol/bike"] {
            _ = try await overlays.waitForLine(containing: id, on: \.stdout, timeout: .seconds(30))
        }
        let collection = try await fixture.daemon.call("overlays")
        let devices = (collection["features"]?.arrayValue ?? []).filter { $0["properties"]?["source"] == "device" }
        #expect(Set(devices.compactMap { $0["id"]?.stringValue }) == ["device:alice/phone", "device:bob/van", "device:carol/bike"])
        let van = try #require(devices.first { $0["id"] == "device:bob/van" })
        #expect(van["geometry"]?["coordinates"] == .array([.double(6.64635), .double(44.221389)]), "\(van.serialized)")
        #expect(van["properties"]?["device"]?["user"] == "bob" && van["properties"]?["device"]?["device"] == "van")
        #expect(van["properties"]?["device"]?["horizontal_error"] == .null && van["properties"]?["device"]?["battery"] == .integer(100))
        #expect(van["properties"]?["temperature"]?.doubleValue != nil, "the weather where it is: \(van.serialized)")
        #expect(collection["focus"] == .null)

        let state = try await fixture.daemon.call("state")
        #expect(state["location"]?["source"] == "owntracks" && state["location"]?["device"] == "alice/phone", "\(state.serialized)")
        let source = state["location_sources"]?.arrayValue?.first { $0["name"] == "owntracks" }
        #expect(source?["enabled"] == .bool(true) && source?["connected"] == .bool(true), "\(state.serialized)")
        #expect(source?["last_fix_at"]?.stringValue != nil)
        #expect(try await fixture.ownTracksFixes(accepted: false) == "0")
    }

    @Test("bad payloads are dropped with one warning a minute and counted; the location, the daemon and the key stay untouched")
    func badPayloads() async throws {
        let fixture = try await OwnTracksDaemon(webLines: ["read_only = true"])
        try await fixture.publish("alice/phone", try freshOwnTracks("location-5s.json"))
        let first = try await fixture.daemon.call("locate", ["source": "owntracks", "max_age": .integer(600), "timeout": .integer(30)])
        #expect(first["properties"]?["fix"]?["device"] == "alice/phone")
        let states = try await Watcher.start(socketPath: fixture.daemon.socketPath, params: ["topics": .array(["state"])])

        let binary = try fixture.directory.write("binary", String(decoding: [0xff, 0xfe, 0x00, 0x01, 0x80] as [UInt8], as: UTF8.self))
        let published = try await runCommand(
            "/usr/bin/mosquitto_pub", fixture.broker!.clientOptions() + ["-t", "owntracks/mallory/bad", "-f", binary],
            environment: TestEnvironment.childEnvironment())
        #expect(published.status == 0)
        try await fixture.publish("mallory/bad", "not JSON at all")
        try await fixture.publish("mallory/bad", String(decoding: try Fixture.ownTracks("location-lat-missing.json"), as: UTF8.self))
        try await fixture.publish("mallory/bad", #"{"_type":"encrypted","data":"%%% not base64"}"#)
        try await fixture.publish("mallory/bad", sealedOwnTracks(try freshOwnTracks("location-5s.json"), secret: "another-key"))
        // The recorded encrypted payload opens (its fix is years old: not taken, counted).
        try await fixture.publish("eve/old", String(decoding: try Fixture.ownTracks("encrypted-location-5s.json"), as: UTF8.self))
        // Other types: accepted and ignored, not counted.
        try await fixture.publish("alice/phone", String(decoding: try Fixture.ownTracks("transition.json"), as: UTF8.self))
        // A good one after them: once it is the location, every one before it was read.
        var later = try freshOwnTracks("location-sk.json")
        later = later.replacingOccurrences(of: #""acc":35"#, with: #""acc":12"#)
        try await fixture.publish("alice/phone", later)
        try await states.next("the state with the later fix", timeout: .seconds(30)) { message -> Bool in
            let error: Double? = message["params"]?["location"]?["horizontal_error"]?.doubleValue
            return message["method"] == "state" && error == 12
        }
        await states.close()

        #expect(try await fixture.ownTracksFixes(accepted: false) == "6")
        let warnings = fixture.daemon.stderrText.split(separator: "\n").filter { $0.contains("OwnTracks: dropped a payload") }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.contains("from mallory/bad over MQTT: not JSON") == true, "\(warnings)")

        // HTTP mode on a read-only listener: refused like every write.
        let refused = try await fixture.post(try freshOwnTracks("location-5s.json"), headers: ["X-Limit-U: alice", "X-Limit-D: phone"])
        #expect(refused.status == 405)

        // The key appears nowhere: not in the log, a reply, the metrics or a file.
        var seen = [fixture.daemon.stderrText]
        seen.append(try await fixture.daemon.call("state").serialized)
        seen.append(try await fixture.daemon.call("overlays").serialized)
        seen.append(try await httpRequest(port: fixture.webPort, "/metrics").text)
        seen.append(try await httpRequest(port: fixture.webPort, "/state.json").text)
        let check = try await runWeatherd(["--check-config", "--config", fixture.daemon.setup.configPath])
        seen.append(check.stdout + check.stderr)
        let stateFiles = (try? FileManager.default.subpathsOfDirectory(atPath: fixture.daemon.setup.stateDirectory)) ?? []
        for file in stateFiles {
            seen.append((try? String(contentsOfFile: fixture.daemon.setup.stateDirectory + "/" + file, encoding: .utf8)) ?? "")
        }
        for text in seen { #expect(!text.contains(OwnTracksDaemon.secret), "\(text.prefix(300))") }
        let (exit, _) = try await fixture.daemon.terminate()
        #expect(exit == 0)
    }

    @Test("HTTP mode with curl: 400 without user and device, 403 from another origin, else 200 [] (a dropped payload too); 404 when off")
    func httpMode() async throws {
        let fixture = try await OwnTracksDaemon(broker: false)
        let watcher = try await Watcher.start(socketPath: fixture.daemon.socketPath, params: ["topics": .array(["overlays"])])
        let payload = try freshOwnTracks("location-5s.json")

        let missing = try await fixture.post(payload)
        #expect(missing.status == 400, "\(missing)")
        let foreign = try await fixture.post(payload, headers: ["X-Limit-U: dave", "X-Limit-D: phone", "Origin: http://evil.example"])
        #expect(foreign.status == 403, "\(foreign)")
        let taken = try await fixture.post(payload, headers: ["X-Limit-U: dave", "X-Limit-D: phone"])
        #expect(taken.status == 200 && taken.body == "[]", "\(taken)")
        let recorder = try await fixture.post(try freshOwnTracks("location-sk.json"), query: "?u=erin&d=tablet")
        #expect(recorder.status == 200 && recorder.body == "[]", "\(recorder)")
        // The page's own origin is no foreign one.
        let page = try await fixture.post(
            payload, headers: ["X-Limit-U: dave", "X-Limit-D: phone", "Origin: http://127.0.0.1:\(fixture.webPort)"])
        #expect(page.status == 200, "\(page)")
        // A body over 64 KiB is not read.
        let large = try await fixture.post(
            String(repeating: " ", count: OwnTracksPayload.maxBytes + 1), headers: ["X-Limit-U: dave", "X-Limit-D: phone"])
        #expect(large.status == 413, "\(large)")
        let dropped = try await fixture.post("{not json", headers: ["X-Limit-U: dave", "X-Limit-D: phone"])
        #expect(dropped.status == 200 && dropped.body == "[]", "\(dropped)")
        // The followed device (alice/phone) sent nothing: the fused location stays empty.
        #expect(try await fixture.daemon.call("state")["location"] == .null)

        let wanted: Set<String> = ["device:dave/phone", "device:erin/tablet"]
        try await watcher.next("the overlays with both devices", timeout: .seconds(30)) { message -> Bool in
            let features: [JSONValue] = message["params"]?["features"]?.arrayValue ?? []
            let ids = Set(features.compactMap { $0["id"]?.stringValue })
            return message["method"] == "overlays" && ids.isSuperset(of: wanted)
        }
        await watcher.close()
        #expect(try await fixture.ownTracksFixes(accepted: false) == "1", "the payload that is not JSON; the large one was not read")

        // A listener without HTTP mode: 404.
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: fixture.replay)
        setup.webLines = [#"listen = "127.0.0.1:0""#]
        let plain = try await DaemonProcess.start(setup)
        let off = try await httpRequest(
            port: try await plain.webPort(), "/owntracks", method: "POST", headers: ["X-Limit-U": "a", "X-Limit-D": "b"])
        #expect(off.status == 404)
    }
}
