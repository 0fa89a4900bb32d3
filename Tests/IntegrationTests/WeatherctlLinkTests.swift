import Foundation
import Testing

@testable import TestSupport

/// What the `weatherctl` binary carries: the wire format (`WeatherRPC`) without the daemon's core,
/// so neither TOMLKit, nor toml++ under it, nor the C++ runtime that toml++ needs.
@Suite("weatherctl's binary")
struct WeatherctlLinkTests {
    /// The bytes of the built executable `name`.
    static func image(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try TestEnvironment.binary(name)))
    }

    static func contains(_ image: Data, _ text: String) -> Bool {
        image.range(of: Data(text.utf8)) != nil
    }

    @Test("weatherctl links neither TOMLKit nor toml++; weatherd does (the check can tell)")
    func noTOMLKit() throws {
        let weatherctl = try Self.image("weatherctl")
        // Swift's mangled module name, and the C++ namespace `toml` as the Itanium ABI mangles it.
        #expect(!Self.contains(weatherctl, "7TOMLKit"))
        #expect(!Self.contains(weatherctl, "_ZN4toml"))
        let weatherd = try Self.image("weatherd")
        #expect(Self.contains(weatherd, "7TOMLKit"))
        #expect(Self.contains(weatherd, "_ZN4toml"))
    }
}
