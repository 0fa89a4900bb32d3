import Synchronization
import WeatherCore

/// The decisions of ``RequestSlots``: a plain state machine. At most `limit` requests of one client
/// run at once; a hang-up (`close`) refuses every take and wait from then on.
struct RequestSlotsState {
    let limit: Int
    private(set) var taken = 0
    private(set) var closed = false

    init(limit: Int) {
        self.limit = limit
    }

    /// The reader asks for a slot: true when taken, false when closed, nil while all are taken (it
    /// waits for a `give` or the close, then asks again).
    mutating func take() -> Bool? {
        if closed { return false }
        guard taken < limit else { return nil }
        taken += 1
        return true
    }

    /// Whether every slot is free: true, false when closed, nil while some are taken.
    var allFree: Bool? {
        if closed { return false }
        return taken == 0 ? true : nil
    }

    /// A request is done: its slot is free.
    mutating func give() {
        precondition(taken > 0, "a slot given back that was not taken")
        taken -= 1
    }

    mutating func close() {
        closed = true
    }
}

/// At most `limit` requests of one client run at once: the reader takes a slot before it starts
/// one (waiting while all are taken), and the request gives it back when it is done. A hang-up
/// (`close`) ends every wait on them. One task waits at a time: the reader. The MQTT publisher
/// admits the requests it receives with the same slots and ``Admission``.
public final class RequestSlots: Sendable {
    private let state: Mutex<RequestSlotsState>
    private let freed = Wakeup()

    public init(limit: Int) {
        state = Mutex(RequestSlotsState(limit: limit))
    }

    /// Takes a slot, waiting while all `limit` are taken; false when the client has hung up or
    /// the task is cancelled.
    public func take() async -> Bool {
        await until { $0.take() }
    }

    /// Waits until every slot is free (true), or the client has hung up or the task is cancelled.
    public func allFree() async -> Bool {
        await until { $0.allFree }
    }

    public func give() {
        state.withLock { $0.give() }
        freed.wake()
    }

    public func close() {
        state.withLock { $0.close() }
        freed.wake()
    }

    /// Asks `decide` until it decides; waits for a change in between (false when cancelled).
    private func until(_ decide: (inout RequestSlotsState) -> Bool?) async -> Bool {
        while true {
            if let decided = state.withLock({ decide(&$0) }) { return decided }
            guard await freed.wait() else { return false }
        }
    }
}

extension RequestSlots {
    /// The one ordered admission of a client's requests, whatever carries them (a socket or WebSocket
    /// session, MQTT's request topic): waits for a free slot, starts `handle` in `group` with a new
    /// ``Admission``, and returns once the request has entered the search stream (or is done), so the
    /// next one is started only then; its slot is given back when `handle` returns.
    /// - Parameters:
    ///   - admitting: told the admission before `handle` starts (a hang-up must be able to open it).
    ///   - stillWanted: asked once `handle` started, before the wait: false when the client is gone.
    /// - Returns: false when no more should be read: the slots were closed (the client hung up, the
    ///   publisher stops), the task was cancelled, or `stillWanted` said so.
    public func admit(
        into group: inout DiscardingTaskGroup, admitting: (Admission) -> Void = { _ in }, stillWanted: () -> Bool = { true },
        _ handle: @escaping @Sendable (Admission) async -> Void
    ) async -> Bool {
        guard await take() else { return false }
        let admission = Admission()
        admitting(admission)
        group.addTask { [self] in
            await handle(admission)
            admission.open()  // done: it entered, or never will
            give()
        }
        guard stillWanted() else { return false }
        return await admission.entered()
    }
}
