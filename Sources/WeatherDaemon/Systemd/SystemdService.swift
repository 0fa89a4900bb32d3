import Logging
import ServiceLifecycle
import WeatherCore

/// Pings systemd's watchdog at half the interval it asked for, and tells it `STOPPING=1` when the
/// daemon begins to shut down.
public struct SystemdService: Service, CustomStringConvertible {
    private let notifier: SystemdNotifier
    private let watchdog: Duration?
    private let clock: DaemonClock
    private let logger: Logger

    public init(notifier: SystemdNotifier, watchdog: Duration?, clock: DaemonClock, logger: Logger) {
        self.notifier = notifier
        self.watchdog = watchdog
        self.clock = clock
        self.logger = logger
    }

    public var description: String { "SystemdNotify" }

    public func run() async throws {
        // A service that returns early would stop the whole group: without systemd, just wait.
        guard notifier.isActive else {
            try? await gracefulShutdown()
            return
        }
        if let watchdog {
            logger.info("systemd watchdog every \(watchdog); pinging every \(watchdog / 2)")
            await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    notifier.notify(["WATCHDOG=1"])
                    do { try await clock.sleep(for: watchdog / 2) } catch { return }
                }
            }
        } else {
            try? await gracefulShutdown()
        }
        notifier.notify(["STOPPING=1", "STATUS=stopping"])
    }
}
