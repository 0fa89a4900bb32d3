import Foundation
import Testing

@testable import TestSupport

/// libmosquitto (MQTT) and libsodium (OwnTracks' encrypted payloads) are loaded when a configuration
/// uses them (Sources/COnDemand), not at every start.
@Suite("Libraries loaded on demand")
struct LibrariesOnDemandTests {
    static let onDemand = ["libmosquitto.so", "libsodium.so"]

    /// The file names of the shared objects process `pid` maps.
    static func mapped(pid: Int32) throws -> Set<String> {
        Set(
            try procText("/proc/\(pid)/maps").split(separator: "\n").compactMap { line in
                line.split(whereSeparator: \.isWhitespace).dropFirst(5).first.flatMap { $0.split(separator: "/").last.map(String.init) }
            })
    }

    @Test("weatherd names none of them; a daemon that uses none maps none, nor libssl, which libmosquitto loads")
    func notAtStart() async throws {
        let needed = try WeatherctlLinkTests.needed("weatherd")
        #expect(needed.contains("libcurl-gnutls.so.4"), "weatherd needs \(needed): the reader missed its dynamic section")
        for library in Self.onDemand {
            #expect(!needed.contains { $0.hasPrefix(library) }, "weatherd needs \(needed)")
        }
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))
        #expect(try await daemon.call("search", ["city": "London"])["id"]?.stringValue == Fixtures.londonID)
        let mapped = try Self.mapped(pid: daemon.pid)
        #expect(mapped.contains { $0.hasPrefix("libcurl-gnutls.so") }, "mapped: \(mapped.sorted())")
        for library in Self.onDemand + ["libssl.so"] {
            #expect(!mapped.contains { $0.hasPrefix(library) }, "mapped: \(mapped.sorted())")
        }
    }

    @Test("with MQTT configured, libmosquitto is loaded and the daemon connects")
    func mosquittoWhenUsed() async throws {
        let fixture = try await MQTTDaemon()  // it waits for "MQTT: connected to the broker"
        let mapped = try Self.mapped(pid: fixture.daemon.pid)
        #expect(mapped.contains { $0.hasPrefix("libmosquitto.so") }, "mapped: \(mapped.sorted())")
        #expect(!mapped.contains { $0.hasPrefix("libsodium.so") }, "mapped: \(mapped.sorted())")
    }

    @Test("with MQTT configured but no loadable libmosquitto, one log line says so (naming the package) and the daemon serves on")
    func mosquittoMissing() async throws {
        let directory = try TemporaryDirectory()
        // A libmosquitto.so.1 the loader finds first and cannot load.
        let libraries = directory.path + "/lib"
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: libraries + "/libmosquitto.so.1", contents: Data()))
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.mqttLines = ["broker = \"mqtt://127.0.0.1:1\"", "client_id = \"missing\""]
        let daemon = try await DaemonProcess.start(setup, environment: ["LD_LIBRARY_PATH": libraries])
        let line = try await daemon.process.waitForLine(containing: "cannot load libmosquitto", on: \.stderr)
        #expect(line.contains("MQTT: ") && line.contains("(Debian: libmosquitto1)"), "\(line)")
        #expect(try await daemon.call("search", ["city": "London"])["id"]?.stringValue == Fixtures.londonID)
        #expect(!(try Self.mapped(pid: daemon.pid)).contains { $0.hasPrefix("libmosquitto.so") })
    }
}
