import ArgumentParser
import Foundation
import WeatherClient

/// A subcommand with the global options (for messages about the socket).
protocol HasGlobalOptions {
    var options: GlobalOptions { get }
}

struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The daemon's socket (default: $WEATHERD_SOCKET, else /run/weatherd/weatherd.sock).", valueName: "path"))
    var socket: String?

    var socketPath: String {
        socket ?? ProcessInfo.processInfo.environment["WEATHERD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "/run/weatherd/weatherd.sock"
    }

    /// Connects, runs `body`, closes.
    func withConnection<R: Sendable>(_ body: (DaemonConnection) async throws -> R) async throws -> R {
        try await DaemonConnection.with(socketPath: socketPath, body)
    }
}
