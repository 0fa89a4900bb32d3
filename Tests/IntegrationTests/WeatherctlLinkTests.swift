import Foundation
import Testing

@testable import TestSupport

/// What the `weatherctl` binary carries: the wire format (`WeatherRPC`) without the daemon's core,
/// so neither TOMLKit, nor toml++ under it; no NIO; and no full Foundation, so neither its ICU nor the C++
/// runtime (the release link takes the few pieces the static Swift runtime calls from libstdc++'s
/// archive, see Package.swift).
@Suite("weatherctl's binary")
struct WeatherctlLinkTests {
    /// The bytes of the built executable `name`.
    static func image(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try TestEnvironment.binary(name)))
    }

    static func contains(_ image: Data, _ text: String) -> Bool {
        image.range(of: Data(text.utf8)) != nil
    }

    /// The shared libraries the executable `name` names itself (its DT_NEEDED entries, as
    /// `readelf -d` lists them), not those they need in turn.
    static func needed(_ name: String) throws -> [String] {
        try ELFImage(try image(name)).neededLibraries()
    }

    /// The libraries of full Foundation and of its ICU, as a build that links them dynamically names them.
    static let foundationLibraries = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"]

    /// ICU's data, linked in with Foundation's internationalization in a static build (its name, `icudt…`).
    static let icuData = "icudt"

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

    @Test("weatherctl links no NIO (its blocking client is WeatherSocket); weatherd does (the check can tell)")
    func noNIO() throws {
        // Swift's mangled module names, in every symbol and type name of the module.
        for module in ["7NIOCore", "8NIOPosix"] {
            #expect(!Self.contains(try Self.image("weatherctl"), module))
            #expect(Self.contains(try Self.image("weatherd"), module))
        }
    }

    @Test("weatherctl names neither libstdc++ nor a library of full Foundation; weatherd names libstdc++ (toml++ is C++)")
    func noCXXRuntime() throws {
        let weatherctl = try Self.needed("weatherctl")
        #expect(!weatherctl.isEmpty, "weatherctl names no library: the reader missed its dynamic section")
        #expect(!weatherctl.contains("libstdc++.so.6"), "weatherctl needs \(weatherctl)")
        for library in Self.foundationLibraries {
            // An incremental build can keep WeatherRPC objects compiled while it imported Foundation
            // (their autolink entries name it): a clean build does not.
            #expect(!weatherctl.contains(library), "weatherctl needs \(weatherctl); after an incremental build, build clean")
        }
        #expect(try Self.needed("weatherd").contains("libstdc++.so.6"))
    }

    @Test("weatherctl carries no ICU; owm-replay, which links Foundation, does (the check can tell)")
    func noICU() throws {
        #expect(!Self.contains(try Self.image("weatherctl"), Self.icuData))
        #expect(!(try Self.needed("weatherctl")).contains { $0.hasPrefix("libicu") })
        // A debug build names Foundation's libraries; a static release build carries ICU's data.
        let replay = try Self.needed("owm-replay")
        let replayImage = try Self.image("owm-replay")
        #expect(Self.foundationLibraries.contains(where: replay.contains) || Self.contains(replayImage, Self.icuData))
    }
}

/// Just enough of an ELF64 little-endian file (x86-64, arm64) to list what its dynamic section needs.
struct ELFImage {
    let bytes: [UInt8]

    init(_ data: Data) { bytes = [UInt8](data) }

    private func integer(at offset: Int, size: Int) throws -> Int {
        guard offset >= 0, offset + size <= bytes.count else { throw ELFError("offset \(offset) is past the end") }
        var value: UInt64 = 0
        for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return Int(truncatingIfNeeded: value)
    }

    /// The DT_NEEDED entries: the section of type SHT_DYNAMIC, its strings in the section it links to.
    func neededLibraries() throws -> [String] {
        guard bytes.starts(with: [0x7F, 0x45, 0x4C, 0x46, 2, 1]) else { throw ELFError("not a 64-bit little-endian ELF file") }
        let sectionTable = try integer(at: 0x28, size: 8)
        let sectionSize = try integer(at: 0x3A, size: 2)
        let sectionCount = try integer(at: 0x3C, size: 2)
        func section(_ index: Int) throws -> (type: Int, offset: Int, size: Int, link: Int) {
            let base = sectionTable + index * sectionSize
            return (
                try integer(at: base + 4, size: 4), try integer(at: base + 0x18, size: 8), try integer(at: base + 0x20, size: 8),
                try integer(at: base + 0x28, size: 4)
            )
        }
        for index in 0..<sectionCount {
            let dynamic = try section(index)
            guard dynamic.type == 6 else { continue }  // SHT_DYNAMIC
            let strings = try section(dynamic.link).offset
            var needed: [String] = []
            for entry in stride(from: dynamic.offset, to: dynamic.offset + dynamic.size, by: 16) {
                let tag = try integer(at: entry, size: 8)
                if tag == 0 { break }  // DT_NULL
                guard tag == 1 else { continue }  // DT_NEEDED
                let start = strings + (try integer(at: entry + 8, size: 8))
                guard let end = bytes[start...].firstIndex(of: 0) else { throw ELFError("an unterminated name") }
                needed.append(String(decoding: bytes[start..<end], as: UTF8.self))
            }
            return needed
        }
        return []
    }
}

struct ELFError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
