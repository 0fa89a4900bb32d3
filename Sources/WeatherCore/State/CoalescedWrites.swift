/// When a state file is written, as a plain value: a write asked for while another is under way
/// waits for it, and every write asked for meanwhile becomes one. A write reads the contents as they
/// are when it begins, so it holds everything asked for before: a burst of changes is one write
/// (two when one was already running), however long the burst.
///
/// Each request gets a generation (1, 2, …); a write covers every generation asked for before it
/// began, and whoever waits for a generation it covered is answered with its outcome.
public struct CoalescedWrites: Sendable, Equatable {
    /// The newest generation asked for.
    public private(set) var requested = 0
    /// The newest generation a finished write covered.
    public private(set) var written = 0
    /// The generations the write under way covers (up to); nil while none has begun.
    public private(set) var covering: Int?
    /// A writer is scheduled or writing: a new request needs none started.
    public private(set) var active = false

    public init() {}

    /// A write is asked for (the new contents are in place): its generation, and whether a writer is
    /// to be started (none is active). Otherwise the active one writes it.
    public mutating func request() -> (generation: Int, start: Bool) {
        requested += 1
        guard !active else { return (requested, false) }
        active = true
        return (requested, true)
    }

    /// The writer begins a write (it reads the contents next): the generations it covers, up to.
    public mutating func began() -> Int {
        precondition(active && covering == nil, "a write began with none asked for, or during another")
        covering = requested
        return requested
    }

    /// The write ended: the generations it covered (up to `covered`), and whether the writer is to
    /// write again at once (more were asked for meanwhile; the next write covers them all).
    public mutating func finished() -> (covered: Int, again: Bool) {
        guard let covered = covering else { preconditionFailure("no write was under way") }
        written = covered
        covering = nil
        active = requested > covered
        return (covered, active)
    }
}
