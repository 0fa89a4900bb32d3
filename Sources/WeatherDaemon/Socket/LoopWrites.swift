import NIOCore
import Synchronization
import WeatherSessions

/// The connections of one event loop with notifications to write: a change published to 10,000
/// watchers costs each event loop one job (one `execute`, one wake-up of its thread), which writes
/// to all of its watchers that have something, in the order they were handed the change, each
/// flushed once. Not one job per watcher, and never inside the publisher's turn.
///
/// The decisions are ``LoopWritesState``'s.
final class LoopWrites: Sendable {
    private let eventLoop: any EventLoop
    private let state = Mutex(LoopWritesState<Pending>())

    /// A connection that waits for the loop's job: its output and what it writes from.
    struct Pending: Sendable {
        let output: SocketLineOutput
        let outbox: Outbox
    }

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// `output` has lines in `outbox` to write on the loop: they are written by the loop's next job.
    /// From any thread, the loop's own included (the job then runs after the current one).
    func add(_ output: SocketLineOutput, _ outbox: Outbox) {
        guard state.withLock({ $0.add(Pending(output: output, outbox: outbox)) }) else { return }
        eventLoop.execute { self.run() }
    }

    /// The loop's job: writes every connection's lines, the same notification line made into one
    /// buffer for all of them.
    private func run() {
        let pending = state.withLock { $0.take() }
        var encoded = EncodedLine()
        for connection in pending { connection.output.pumpQueued(connection.outbox, encoded: &encoded) }
    }
}

/// Which connections wait for an event loop's next write job, and whether that job is scheduled:
/// a plain state machine.
struct LoopWritesState<Item> {
    private var waiting: [Item] = []
    private var scheduled = false

    /// `item` waits for the next job. True when the caller is to schedule that job: none is yet.
    mutating func add(_ item: Item) -> Bool {
        waiting.append(item)
        defer { scheduled = true }
        return !scheduled
    }

    /// The job runs: what waits, in the order it came; an `add` from now on schedules the next job.
    mutating func take() -> [Item] {
        scheduled = false
        defer { waiting = [] }
        return waiting
    }
}

/// The last line made into a buffer (with its newline). A job that writes one change to many
/// connections makes the buffer once: each channel keeps a reference to the same bytes until
/// they are written (a `ByteBuffer` is copied only when changed).
struct EncodedLine {
    private var line: String?
    private var buffer: ByteBuffer?

    /// `line` and its newline in a buffer: the last one when it is the same line (the same string,
    /// as the hub hands every watcher the one it made, is told without comparing its bytes).
    mutating func buffer(for line: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        if let buffer, self.line == line { return buffer }
        var buffer = allocator.buffer(capacity: line.utf8.count + 1)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        self.line = line
        self.buffer = buffer
        return buffer
    }
}

/// Each event loop's ``LoopWrites``, made for its first connection.
final class LoopWritesRegistry: Sendable {
    private let queues = Mutex<[ObjectIdentifier: LoopWrites]>([:])

    func writes(for eventLoop: any EventLoop) -> LoopWrites {
        queues.withLock { queues in
            if let writes = queues[ObjectIdentifier(eventLoop)] { return writes }
            let writes = LoopWrites(eventLoop: eventLoop)
            queues[ObjectIdentifier(eventLoop)] = writes
            return writes
        }
    }
}
