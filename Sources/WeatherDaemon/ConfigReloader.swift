import Logging
import ServiceLifecycle
import UnixSignals
import WeatherCore

#if canImport(Glibc)
    import Glibc
#endif

/// Re-reads the configuration on SIGHUP and on the `reload` method, one reload at a time, and hands
/// it to each part of the daemon in turn; each part applies its own keys (``Reconfigurable``). A
/// broken file is reported and the running configuration kept; the warnings of a good one (a deprecated
/// key) are logged, and a changed key that needs a restart (``ConfigKey/Reload/restart``) is logged as such. Under systemd each reload is framed by
/// `RELOADING=1` (with `MONOTONIC_USEC`) and `READY=1`.
final class ConfigReloader: Service, CustomStringConvertible {
    private let source: Daemon.ConfigSource
    private let initial: DaemonConfig
    private let parts: [any Reconfigurable]
    private let notifier: SystemdNotifier
    private let servingStatus: String
    private let requests: ReloadRequests
    private let logger: Logger

    /// - Parameters:
    ///   - running: the configuration the daemon started with.
    ///   - parts: the parts that apply a new configuration, in the order they apply it.
    ///   - servingStatus: the systemd status text once a reload is done.
    init(
        source: @escaping Daemon.ConfigSource, running: DaemonConfig, parts: [any Reconfigurable],
        notifier: SystemdNotifier, servingStatus: String, requests: ReloadRequests, logger: Logger
    ) {
        self.requests = requests
        self.source = source
        self.initial = running
        self.parts = parts
        self.notifier = notifier
        self.servingStatus = servingStatus
        self.logger = logger
    }

    var description: String { "ConfigReloader" }

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [logger = self.logger, requests = self.requests] in
                    for await _ in hangups {
                        logger.notice("SIGHUP: reloading the configuration")
                        _ = await requests.reload()
                    }
                }
                var running = self.initial
                for await request in self.requests.requests {
                    let outcome: ReloadRequests.Outcome
                    (running, outcome) = await self.reload(running)
                    request.complete(outcome)
                }
                group.cancelAll()
            }
        }
        // Stopping: a reload asked for from now on gets none (a requester still waiting is a client
        // whose session shutdown cancels, which ends its wait).
        requests.finish()
    }

    /// Reads the configuration again and applies it; returns the configuration now in force and
    /// what happened.
    func reload(_ running: DaemonConfig) async -> (DaemonConfig, ReloadRequests.Outcome) {
        notifier.notify(["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())", "STATUS=reloading the configuration"])
        let change: ConfigChange
        do {
            let (loaded, keys) = try source()
            for warning in loaded.warnings { logger.warning("reload: \(warning)") }
            change = ConfigChange(old: running, new: loaded.config, keys: keys)
        } catch {
            let problems = error.problems.map(\.description)
            for problem in problems { logger.error("reload: \(problem)") }
            logger.error("reload failed; keeping the running configuration")
            notifier.notify(["READY=1", "STATUS=serving; the last reload failed (see the log)"])
            return (running, .rejected(problems: problems))
        }
        let restartNeeded = change.needingRestart
        for key in restartNeeded {
            logger.warning("reload: \(key.path) changed to \(key.shown(change.new)); it takes effect after a restart")
        }
        for part in parts { await part.apply(change) }
        let changed = change.summary
        logger.notice("configuration reloaded; changed: \(changed.isEmpty ? "nothing" : changed.joined(separator: ", "))")
        notifier.notify(["READY=1", "STATUS=\(servingStatus)"])
        return (change.new, .applied(changed: change.changedKeys.map(\.path), restartNeeded: restartNeeded.map(\.path)))
    }

    /// CLOCK_MONOTONIC in microseconds, as systemd wants it with `RELOADING=1`.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
