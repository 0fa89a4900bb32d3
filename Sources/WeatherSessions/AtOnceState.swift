/// Whether the transport's thread may answer a client's message at once
/// (``ClientSession/answerAtOnce(_:)``), as a plain state machine: only while the session reads and
/// nothing of the client's is unfinished (waiting for the reader, being admitted or running), so
/// that its replies stay in the order of its requests.
struct AtOnceState: Sendable {
    /// The session reads the client's messages.
    private(set) var reading = false
    /// Messages handed to the reader whose requests are not done yet.
    private(set) var unfinished = 0

    /// Whether a message that comes now may be answered at once.
    var mayAnswer: Bool { reading && unfinished == 0 }

    /// The session reads.
    mutating func started() {
        reading = true
    }

    /// The session reads no more: nothing is answered at once from then on.
    mutating func stopped() {
        reading = false
    }

    /// A message was not answered at once: it goes to the reader and is unfinished until its
    /// request is done (``finished()``).
    mutating func handedOver() {
        unfinished += 1
    }

    /// The request of a message handed over is done: its reply (if any) is queued.
    mutating func finished() {
        precondition(unfinished > 0, "a message finished that was not handed over")
        unfinished -= 1
    }
}
