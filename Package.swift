// swift-tools-version:6.0
import PackageDescription

// The release link of the two binaries an operator runs: lld with packed relative
// relocations (DT_RELR, glibc 2.36 as in Debian 12: 2 MB of relocation records become 40 KB that
// the loader reads at every start) and no symbols exported to the dynamic symbol table (nothing
// links against an executable; the loader resolved thousands of them at start, and the runtime's
// dladdr scanned them all). weatherd's idle RSS: 30 MB instead of 35.
//
// And the code that runs laid out together, first in the text (packaging/order/, made by
// `make order-files`): a page of code is resident once anything on it ran, with its neighbours (the
// kernel's fault-around), and the code weatherd runs was spread over most of its 19 MB of text. A
// name the file lists that no longer exists is skipped; its code only lands among the cold code. The
// ordering moves functions, not files, because release builds give every function a section of its
// own (the Makefile's RELEASE_FLAGS); the code without a symbol and the compiler's helpers defined
// under one name in many objects, which no ordering file can name alone, are kept together just
// before it (packaging/order/layout.ld, made with the lists).
func releaseLink(_ product: String) -> [LinkerSetting] {
    [
        .unsafeFlags(
            [
                "-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/packaging/order/\(product).txt",
                "-Xlinker", "--no-warn-symbol-ordering",
                "-Xlinker", "-T", "-Xlinker", "\(Context.packageDirectory)/packaging/order/layout.ld",
            ],
            .when(configuration: .release))
    ]
}

// weatherctl's release link also takes the C++ runtime from libstdc++'s archive, not its shared
// library (packaging/link/libstdc++.so): the static Swift runtime calls a few pieces of it (operator
// new, std::string, __cxa_guard), 200 KB in the binary, while the loader mapping and relocating
// libstdc++.so.6 and resolving its symbols took a quarter of the CPU of a static Swift "hello" at
// every start. weatherctl links no C++ of its own (no TOMLKit, no Foundation with its ICU).
let staticCXXRuntime: [LinkerSetting] = [
    .unsafeFlags(["-L", "\(Context.packageDirectory)/packaging/link"], .when(configuration: .release))
]

// Every file imports the modules whose members it uses: a member of a module that only a dependency
// imports is not visible. Foundation's `range(of:)` and `contains(_:)` on strings come in with
// TOMLKit's import, and one call of them links all of Foundation, CoreFoundation and ICU into
// weatherd. With this setting such a call does not compile, `contains(_:)` is the standard
// library's, and its `firstRange(of:)` stands in for `range(of:)`.
let ownImports: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "weatherd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "weatherd", targets: ["weatherd"]),
        .executable(name: "weatherctl", targets: ["weatherctl"]),
        .executable(name: "owm-replay", targets: ["owm-replay"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // The socket protocol's wire format: JSON values (ordered objects, the parser and the
        // encoder), JSON-RPC 2.0 messages and error codes, the protocol's small value types.
        // No dependency: `weatherctl` links it, and with it neither TOMLKit nor the C++ runtime.
        .target(name: "WeatherRPC", swiftSettings: ownImports),
        // The pure core: search stream, state, lookups, overlays/GeoJSON, config checking, places,
        // providers (and WeatherRPC, re-exported). No NIO, libcurl, libgps or libmosquitto here.
        .target(
            name: "WeatherCore",
            dependencies: [
                "WeatherRPC",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: ownImports
        ),
        // Clients' sessions, between the core and the transports: the JSON-RPC method table, one
        // connection's requests admitted in order, what waits to be written to it (its outbox), and
        // the fan-out of the engine's changes to watchers. Each lock there guards a plain state machine.
        .target(
            name: "WeatherSessions",
            dependencies: [
                "WeatherCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: ownImports
        ),
        // libcurl, from the system (Debian: libcurl4-gnutls-dev, libcurl built on GnuTLS, whose
        // initialisation leaves OpenSSL's untouched; see Sources/CCurl/shim.h).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-gnutls-dev"])]
        ),
        // libgps, from the system (Debian: libgps-dev, gpsd 3.22, API 11).
        .systemLibrary(
            name: "CGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        // The next two give their libraries' headers only (Debian puts them in /usr/include, and
        // their pkg-config files add no flags but the library's): the libraries are not linked but
        // loaded on first use, through COnDemand.
        // libmosquitto, from the system (Debian: libmosquitto-dev): the MQTT client.
        .systemLibrary(
            name: "CMosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // libsodium, from the system (Debian: libsodium-dev): opens the OwnTracks app's encrypted payloads.
        .systemLibrary(
            name: "CSodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // sd-bus from libsystemd (Debian: libsystemd-dev): GeoClue2 over the system D-Bus.
        .systemLibrary(
            name: "CSDBus",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // libmosquitto and libsodium, which only some configurations use, loaded on first use (dlopen)
        // instead of at every start: their functions, by their own names, through the addresses
        // `weatherd_load_mosquitto` and `weatherd_load_sodium` find (Sources/COnDemand/include/on_demand.h).
        .target(
            name: "COnDemand",
            dependencies: ["CMosquitto", "CSodium"]
        ),
        // weatherd's link reads FoundationEssentials before Foundation, so that Foundation, which
        // TOMLKit's import names, brings nothing in (Sources/CLinkOrder/link_order.c).
        .target(name: "CLinkOrder"),
        // Linux calls the Glibc module does not bring (timerfd, eventfd): a header-only shim.
        .systemLibrary(
            name: "CLinux"
        ),
        // Newline-delimited JSON framing on NIO channels, shared by the daemon and its clients.
        .target(
            name: "WeatherWire",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio")
            ],
            swiftSettings: ownImports
        ),
        // Adapters at the edge (socket server, libcurl transport, durable city store, logging)
        // and the assembly of the daemon's services; the MQTT publisher.
        .target(
            name: "WeatherDaemon",
            dependencies: [
                "WeatherCore",
                "WeatherSessions",
                "WeatherWire",
                "CCurl",
                "CGPS",
                "CMosquitto",
                "CSodium",
                "CSDBus",
                "COnDemand",
                "CLinux",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: ownImports
        ),
        // The blocking client of the daemon's socket (`DaemonSocket`: no event loop, no thread) and the
        // errors of both clients. No NIO: `weatherctl` links it, and its start-up scans the protocol
        // conformances of every module it links.
        .target(
            name: "WeatherSocket",
            dependencies: ["WeatherRPC"],
            swiftSettings: ownImports
        ),
        // The async client of the daemon's socket on NIO, for the tests; it re-exports WeatherSocket.
        .target(
            name: "WeatherClient",
            dependencies: [
                "WeatherSocket",
                "WeatherWire",
                "WeatherRPC",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: ownImports
        ),
        .executableTarget(
            name: "weatherd",
            dependencies: [
                "WeatherDaemon",
                "WeatherCore",
                "CLinkOrder",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: ownImports,
            linkerSettings: releaseLink("weatherd")
        ),
        .executableTarget(
            name: "weatherctl",
            dependencies: [
                "WeatherSocket",
                "WeatherRPC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: ownImports,
            linkerSettings: releaseLink("weatherctl") + staticCXXRuntime
        ),
        // An offline stand-in for OpenWeatherMap, answering from recorded responses.
        .executableTarget(
            name: "owm-replay",
            dependencies: [
                "WeatherCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: ownImports
        ),
        // What the test targets share: running child processes (the real binaries, gpsd, gpsfake),
        // raw sockets, systemd's notify socket, the recorded fixtures; the core over a scripted
        // upstream on a manual clock (engine, location and region harnesses) for the core's and the
        // sessions' tests.
        // A test target, so a release build never builds it (test targets may depend on one another).
        .testTarget(
            name: "TestSupport",
            dependencies: [
                "WeatherCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Support"
        ),
        // The core's tests.
        .testTarget(
            name: "WeatherCoreTests",
            dependencies: ["WeatherCore", "TestSupport"]
        ),
        // The sessions' tests: the method table, the request handler, clients' sessions and
        // outboxes, the hub and their state machines.
        .testTarget(
            name: "WeatherSessionsTests",
            dependencies: ["WeatherSessions", "WeatherCore", "TestSupport"]
        ),
        .testTarget(
            name: "weatherctlTests",
            dependencies: ["TestSupport", "weatherctl", "WeatherCore"]
        ),
        .testTarget(
            name: "OWMReplayTests",
            dependencies: ["owm-replay", "WeatherCore", "TestSupport"]
        ),
        .testTarget(
            name: "WeatherDaemonTests",
            dependencies: [
                "TestSupport",
                "WeatherDaemon",
                "WeatherSessions",
                "WeatherCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WeatherWireTests",
            dependencies: [
                "WeatherWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "WeatherClientTests",
            dependencies: [
                "TestSupport",
                "WeatherClient",
                "WeatherCore",
            ]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "TestSupport",
                "WeatherClient",
                "WeatherCore",
                // The tests seal OwnTracks payloads of their own as the app does.
                "CSodium",
            ],
            // libsodium linked (the daemon loads it on demand; see COnDemand).
            linkerSettings: [.linkedLibrary("sodium")]
        ),
    ]
)
