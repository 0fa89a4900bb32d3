import NIOCore
import Synchronization
import WeatherSessions

/// The connections of one event loop with notifications to write: a change published to 10,000
/// watchers costs each event loop one job (one `execute`, one wake-up of its thread), which writes
/// to all of its watchers that have something, each flushed once. Not one job per watcher, and
/// never inside the publisher's turn.
///
/// It is also the loop's ``NotificationRoute``: the hub hands it each change once for all of the
/// loop's watchers (`deliver`), and the job offers it to their outboxes and writes them, so the
/// publisher's thread does not touch 10,000 outboxes that the loop then touches again. Changes that
/// wait for the same job are all offered before any is written: each watcher gets the newest of each
/// topic, in one flush.
///
/// The decisions are ``LoopWritesState``'s.
final class LoopWrites: NotificationRoute {
    private let eventLoop: any EventLoop
    private let state = Mutex(LoopWritesState<Pending>())
    /// The last line made into a buffer, for every connection of the loop.
    private let encoded: NIOLoopBound<EncodedLine>

    /// What waits for the loop's job.
    enum Pending: Sendable {
        /// A connection with lines in its outbox (a notification the hub offered it alone).
        case connection(SocketLineOutput, Outbox)
        /// A change for the loop's watchers, not offered yet.
        case change(RoutedChange)
    }

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.encoded = NIOLoopBound(EncodedLine(), eventLoop: eventLoop)
    }

    /// The loop's buffer of the last line. On the event loop only.
    var encodedLine: EncodedLine { encoded.value }

    /// `output` has lines in `outbox` to write on the loop: they are written by the loop's next job.
    /// From any thread, the loop's own included (the job then runs after the current one).
    func add(_ output: SocketLineOutput, _ outbox: Outbox) {
        schedule(.connection(output, outbox))
    }

    func deliver(_ change: RoutedChange) {
        schedule(.change(change))
    }

    private func schedule(_ pending: Pending) {
        guard state.withLock({ $0.add(pending) }) else { return }
        eventLoop.execute { self.run() }
    }

    /// The loop's job: offers the changes, then writes every connection's lines, the same
    /// notification line made into one buffer for all of them.
    private func run() {
        let pending = state.withLock { $0.take() }
        let encoded = encoded.value
        if pending.count == 1, case .change(let change) = pending[0] {
            change.offer(signal: true)  // each watcher written as it takes the change in: one pass
            return
        }
        for case .change(let change) in pending { change.offer(signal: false) }
        for item in pending {
            switch item {
            case .connection(let output, let outbox): output.pumpQueued(outbox, encoded: encoded)
            case .change(let change): change.signalWriters()
            }
        }
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
/// they are written (a `ByteBuffer` is copied only when changed). One per event loop, used on it only.
final class EncodedLine {
    private var line: String?
    private var buffer: ByteBuffer?

    /// `line` and its newline in a buffer: the last one when it is the same line (the same string,
    /// as the hub hands every watcher the one it made, is told without comparing its bytes).
    func buffer(for line: String, allocator: ByteBufferAllocator) -> ByteBuffer {
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
