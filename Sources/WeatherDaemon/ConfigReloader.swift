import Logging
import ServiceLifecycle
import UnixSignals
import WeatherCore

/// Re-reads the configuration on SIGHUP and hands it to each part of the daemon in turn; each part
/// applies its own keys (``Reconfigurable``). A broken file is reported and the running configuration
/// kept; a changed key that needs a restart (``ConfigKey/Reload/restart``) is logged as such.
final class ConfigReloader: Service, CustomStringConvertible {
    private let source: Daemon.ConfigSource
    private let initial: DaemonConfig
    private let parts: [any Reconfigurable]
    private let notifier: SystemdNotifier
    private let servingStatus: String
    private let logger: Logger

    /// - Parameters:
    ///   - running: the configuration the daemon started with.
    ///   - parts: the parts that apply a new configuration, in the order they apply it.
    ///   - servingStatus: the systemd status text once a reload is done.
    init(
        source: @escaping Daemon.ConfigSource, running: DaemonConfig, parts: [any Reconfigurable],
        notifier: SystemdNotifier, servingStatus: String, logger: Logger
    ) {
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
            var running = self.initial
            for await _ in hangups { running = await self.reload(running) }
        }
    }

    /// Reads the configuration again and applies it; returns the configuration now in force.
    func reload(_ running: DaemonConfig) async -> DaemonConfig {
        logger.notice("SIGHUP: reloading the configuration")
        notifier.notify(["STATUS=reloading the configuration"])
        let change: ConfigChange
        do {
            let (new, key) = try source()
            change = ConfigChange(old: running, new: new, apiKey: key)
        } catch {
            for problem in error.problems { logger.error("reload: \(problem)") }
            logger.error("reload failed; keeping the running configuration")
            notifier.notify(["STATUS=serving; the last reload failed (see the log)"])
            return running
        }
        for key in change.needingRestart {
            logger.warning("reload: \(key.path) changed to \(key.shown(change.new)); it takes effect after a restart")
        }
        for part in parts { await part.apply(change) }
        let changed = change.summary
        logger.notice("configuration reloaded; changed: \(changed.isEmpty ? "nothing" : changed.joined(separator: ", "))")
        notifier.notify(["STATUS=\(servingStatus)"])
        return change.new
    }
}
