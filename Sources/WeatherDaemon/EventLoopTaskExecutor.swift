import NIOCore

/// Runs the jobs of the tasks that prefer it (`withTaskExecutorPreference`) on one NIO event loop.
/// A connection's session — reading its requests, handling them, writing its replies — then runs
/// on the thread that does the connection's I/O, instead of hopping from the event loop to the
/// daemon's executor (`DaemonExecutor`) and back for every request. Actors it calls run there too while
/// they are free; nothing on that path blocks (lookups run on libcurl's threads, the state files are
/// written on a thread of their own).
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
