import ArgumentParser
import Logging
import WeatherCore
import WeatherDaemon

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// `weatherd`: the weather search daemon.
@main
struct WeatherdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weatherd",
        abstract: "Merges city searches, gpsd locations and map regions into one weather search stream.",
        discussion: """
            Serves the socket protocol (JSON-RPC 2.0 lines) on a Unix domain socket. The reference of \
            methods, configuration keys and exit codes is docs/protocol.md in the source repository.
            """,
        version: WeatherdVersion.current)

    static let defaultConfigPath = "/etc/weatherd/weatherd.toml"

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "path"))
    var config: String = Self.defaultConfigPath

    @Option(name: .long, help: ArgumentHelp("The socket path (overrides socket.path).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning or error.")
    var logLevel: LogLevel = .info

    @Flag(name: .long, help: "Check the configuration, print the effective configuration and exit.")
    var checkConfig = false

    enum LogLevel: String, ExpressibleByArgument, CaseIterable {
        case trace, debug, info, notice, warning, error
        var level: Logger.Level { Logger.Level(rawValue: rawValue)! }
    }

    /// Reads, checks and completes the configuration: at start, and again at each SIGHUP. The origins
    /// of `socket.path` (with `--socket`) and of the API key say where they were found.
    static func configSource(path: String, socket: String?, environment: [String: String]) -> Daemon.ConfigSource {
        { () throws(ConfigError) -> (loaded: LoadedConfig, keys: ProviderKeys) in
            var loaded: LoadedConfig
            if path == defaultConfigPath, access(path, F_OK) != 0 {
                loaded = LoadedConfig()  // no file at the default place: every key has its default
            } else {
                loaded = try ConfigLoader.load(path: path)
            }
            if let socket {
                loaded.config.socket.path = socket
                loaded.origins["socket.path"] = .elsewhere("--socket")
            }
            var keys = ProviderKeys()
            if let (key, origin) = ConfigLoader.findAPIKey(
                loaded.config, file: path, environment: environment, readFile: FileReader.text(atPath:))
            {
                keys.openWeatherMap = key
                loaded.origins["openweathermap.api_key"] = origin
            }
            if let (key, origin) = ConfigLoader.findOpenMeteoKey(
                loaded.config, file: path, environment: environment, readFile: FileReader.text(atPath:))
            {
                keys.openMeteo = key
                loaded.origins["open-meteo.api_key_file"] = origin
            } else if let problem = ConfigLoader.openMeteoKeyFileProblem(
                loaded.config, file: path, environment: environment, readFile: FileReader.text(atPath:))
            {
                loaded.warnings.append(problem)
            }
            try ConfigLoader.checkProviders(loaded.config, keys: keys, file: path)
            loaded.config.mqtt.password = try ConfigLoader.resolveMQTTPassword(
                loaded.config, file: path, environment: environment, readFile: FileReader.text(atPath:))
            loaded.config.ownTracks.secret = try ConfigLoader.resolveOwnTracksSecret(
                loaded.config, file: path, environment: environment, readFile: FileReader.text(atPath:))
            return (loaded, keys)
        }
    }

    func run() throws {
        ProcessMemory.limitAllocatorArenas()
        let environment = ProcessInfo.processInfo.environment
        let source = Self.configSource(path: config, socket: socket, environment: environment)
        let loaded: LoadedConfig
        let keys: ProviderKeys
        do {
            (loaded, keys) = try source()
        } catch {
            DaemonLogHandler.writeToStandardError(DaemonLogHandler.fatalLines(error.description, environment: environment))
            throw ExitCode(78)  // EX_CONFIG
        }
        if checkConfig {
            // Warnings on stderr; the effective configuration, each value with its origin, on stdout.
            for warning in loaded.warnings {
                DaemonLogHandler.writeToStandardError(
                    DaemonLogHandler.plainLines(warning.description, level: .warning, environment: environment))
            }
            var shown = loaded
            if let key = keys.openWeatherMap {
                shown.config.openWeatherMap.apiKey = key  // rendered as "<redacted>", wherever it came from
            }
            print(ConfigLoader.render(shown), terminator: "")
            if keys.openWeatherMap != nil {
                print("# configuration OK (API key found)")
            } else {
                let serving = loaded.config.weather.providers.filter { $0.canServe(with: keys) }.map(\.displayName)
                print("# configuration OK (no OpenWeatherMap API key: weather from \(serving.joined(separator: ", ")))")
            }
            return
        }

        let level = logLevel.level
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, level: level, environment: environment) }
        let logger = Logger(label: "weatherd")
        let metrics = MetricsExporter.bootstrapProcessMetrics()
        let daemon = Daemon(initial: (loaded, keys), source: source, logger: logger, environment: environment, metrics: metrics)
        let outcome = RootTask.run(on: Daemon.executor) { try await daemon.run() }
        if case .failure(let error) = outcome {
            logger.error("fatal: \(error)")
            throw ExitCode(1)
        }
    }
}

/// The daemon's one root task, which the main thread waits for. Not an `async` main: that hands the
/// main thread to libdispatch's `dispatch_main`, which ends it with `pthread_exit`, and unwinding
/// its stack reads the binary's unwind tables once: the pages read (0.5 to 1 MB) stayed resident
/// for the daemon's life. Nothing in weatherd runs on the main actor or the main queue. The task
/// starts on `executor` (the daemon's): a first job on Swift's default executor would start
/// libdispatch's monitor, which wakes the process every second from then on.
enum RootTask {
    static func run(
        on executor: any TaskExecutor, _ body: @escaping @Sendable () async throws -> Void
    ) -> Result<Void, any Error> {
        let finished = Finished()
        Task(executorPreference: executor) {
            do {
                try await body()
                finished.set(.success(()))
            } catch {
                finished.set(.failure(error))
            }
        }
        return finished.wait()
    }

    /// The task's outcome, waited for with a POSIX semaphore (the main thread sleeps in the kernel).
    private final class Finished: @unchecked Sendable {
        /// Allocated, not a stored `sem_t`: a semaphore must not move.
        private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        private var outcome: Result<Void, any Error>?  // written once, before the post

        init() { sem_init(semaphore, 0, 0) }

        deinit {
            sem_destroy(semaphore)
            semaphore.deallocate()
        }

        func set(_ outcome: Result<Void, any Error>) {
            self.outcome = outcome
            sem_post(semaphore)
        }

        func wait() -> Result<Void, any Error> {
            while sem_wait(semaphore) != 0 {}  // EINTR: a signal's handler ran
            return outcome!
        }
    }
}
