import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// The libcurl weatherd runs on: Debian's GnuTLS build (`libcurl3-gnutls`), and OpenSSL's libcrypto,
/// which it loads through libssh2, never initialised (weatherd's transfers are http and https only).
@Suite("libcurl")
struct CurlLibraryTests {
    @Test("weatherd links libcurl's GnuTLS build (libcurl-gnutls.so.4), not its OpenSSL build (libcurl.so.4)")
    func gnutlsBuild() throws {
        let needed = try WeatherctlLinkTests.needed("weatherd")
        #expect(needed.contains("libcurl-gnutls.so.4"), "weatherd needs \(needed)")
        #expect(!needed.contains("libcurl.so.4"), "weatherd needs \(needed)")
    }

    @Test("after an upstream request, little of libcrypto's code is resident: nothing initialised OpenSSL")
    func libcryptoUninitialised() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))
        // The search went upstream through libcurl: curl_global_init and a transfer have run.
        #expect(try await daemon.call("search", ["city": "London"])["id"]?.stringValue == Fixtures.londonID)
        #expect(try await replay.stats().weatherRequests == 1)
        // On Debian 12: 0.2 MB (its constructor's), 1.4-1.6 MB once OpenSSL is initialised (by
        // curl_global_init's libssh2_init, or OpenSSL's libcurl).
        let code = try ProcessMemory.residentCodeKiB(of: "libcrypto.so", pid: daemon.pid)
        #expect(code < 1024, "libcrypto's code resident in weatherd: \(code) KiB")
    }
}
