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
}
