import NIOCore
import NIOPosix

/// Runs the daemon's tasks: the services and everything they start run with this executor as their
/// preference (`Daemon.run`), on threads of its own that wait for work without a timeout.
///
/// Swift's default executor on Linux is libdispatch's global queues, whose first job starts a
/// monitor that wakes the process every second for as long as it lives, idle or not. With this
/// executor, and the daemon's clock sleeping on an event loop's timer (`EventLoopClock`; a sleep on
/// Swift's clocks goes to the default executor whatever the task's preference), no job reaches those
/// queues. A connection's session prefers its own event loop instead (`EventLoopTaskExecutor`).
///
/// As on the cooperative pool it replaces, nothing run here blocks: lookups run on libcurl's threads,
/// the state files are written on a thread of their own.
final class DaemonExecutor: TaskExecutor {
    /// The daemon's one executor: as many threads as the machine (or its CPU quota) has CPUs, like
    /// the cooperative pool. Started once and never stopped: a job must always find a thread.
    static let shared = DaemonExecutor(threads: System.coreCount)

    private let pool: NIOThreadPool

    init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pool.submit { _ in job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
