/// The decisions of a transport's inputs: the messages it read from a connection, waiting for the
/// session's reader, and whether the transport reads the connection on. A plain state machine;
/// `Waiter` is the reader's continuation in the daemon, any token in the tests.
///
/// The transport's first read waits for the reader to ask for a message: everything the client
/// sends meets a session that reads (and can answer some of it at once, in the transport's thread).
/// Once `maxBuffered` messages wait, the transport's next read is held back (the client then
/// waits in the kernel's socket buffer), and it goes ahead once fewer than `resumeBelow` wait.
/// The inputs end when the client closes its side, the connection closes, or a read fails; what
/// was buffered before is still read.
public struct InputQueueState<Element, Waiter> {
    private let maxBuffered: Int
    private let resumeBelow: Int
    /// Messages from `head` on wait to be read. One read of the socket may bring many (NIO reads
    /// up to 4 × 64 KB at a time, before it asks whether to read again).
    private var buffered: [Element] = []
    private var head = 0
    private var waiter: Waiter?
    public private(set) var ended = false
    /// Why the inputs ended early, if they did: a read failed.
    public private(set) var failure: (any Error)?
    /// The transport's read, held back until the reader first asks and while `maxBuffered` messages wait.
    private var readHeld = false
    /// Whether the reader has asked for a message yet.
    private var readerStarted = false

    public init(maxBuffered: Int, resumeBelow: Int) {
        self.maxBuffered = maxBuffered
        self.resumeBelow = resumeBelow
    }

    /// Messages waiting to be read.
    public var count: Int { buffered.count - head }

    /// A message read from the connection: the waiting reader to resume with it, if one waits
    /// (else it is buffered; after the end it is dropped).
    public mutating func yield(_ input: Element) -> Waiter? {
        guard !ended else { return nil }
        guard let waiter else {
            buffered.append(input)
            return nil
        }
        self.waiter = nil
        return waiter
    }

    /// The client sends no more (`failure`: a read failed): the waiting reader to resume with the end.
    public mutating func end(failure: (any Error)? = nil) -> Waiter? {
        if !ended { self.failure = failure }
        ended = true
        readHeld = false
        defer { waiter = nil }
        return waiter
    }

    /// The transport would read again: whether to hold that read back.
    public mutating func holdRead() -> Bool {
        readHeld = !ended && (!readerStarted || count >= maxBuffered)
        return readHeld
    }

    /// What the reader gets without waiting.
    public enum Next {
        case input(Element)
        case end
        /// Nothing yet: it waits (``wait(_:cancelled:)``).
        case none
    }

    /// The reader asks for the next message. `resumeReading`: the read held back goes ahead now.
    public mutating func next() -> (next: Next, resumeReading: Bool) {
        readerStarted = true
        let input = popFirst()
        let resume = readHeld && count < resumeBelow
        if resume { readHeld = false }
        return (input.map { .input($0) } ?? (ended ? .end : .none), resume)
    }

    /// The reader waits (`cancelled`: its task already is): what ends its wait at once, or `.none`
    /// when it now waits for `yield`, `end` or `cancel`.
    public mutating func wait(_ waiter: Waiter, cancelled: Bool) -> Next {
        if let input = popFirst() { return .input(input) }
        if ended || cancelled { return .end }
        self.waiter = waiter
        return .none
    }

    /// The reader's task was cancelled: the waiter to resume with the end, if it still waits.
    public mutating func cancel() -> Waiter? {
        defer { waiter = nil }
        return waiter
    }

    private mutating func popFirst() -> Element? {
        guard head < buffered.count else { return nil }
        let input = buffered[head]
        head += 1
        if head == buffered.count {
            buffered.removeAll(keepingCapacity: buffered.count <= 64)
            head = 0
        }
        return input
    }
}
