import ArgumentParser
import WeatherSocket

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A subcommand with the global options (for messages about the socket).
protocol HasGlobalOptions {
    var options: GlobalOptions { get }
}

struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's socket (default: $WEATHERD_SOCKET, else /run/weatherd/weatherd.sock).", valueName: "path"))
    var socket: String?

    var socketPath: String {
        socket ?? getenv("WEATHERD_SOCKET").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? "/run/weatherd/weatherd.sock"
    }

    /// Connects, runs `body`, closes: a blocking connection, no threads (see `DaemonSocket`).
    func withConnection<R>(_ body: (DaemonSocket) throws -> R) throws -> R {
        try DaemonSocket.with(socketPath: socketPath, body)
    }
}
