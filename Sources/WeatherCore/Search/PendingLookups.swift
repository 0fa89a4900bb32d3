/// The one count behind `state.pending`: the lookups of every input in progress, each input's
/// counted from when it enters the stream until its outcome goes out.
///
/// Each input opens a run with its number of lookups. An answer (or a lookup dropped before it was
/// sent) settles one, except the run's last: that stays counted until the input's outcome goes out
/// with ``close(_:)``, so `running` and the outcome change together. Closing settles whatever is
/// left of the run, once; a run closed again, or never opened, settles nothing.
struct PendingLookups {
    /// One input's lookups.
    struct Run: Hashable, Sendable {
        fileprivate let id: Int
    }

    private var runs: [Int: Int] = [:]
    private var nextID = 0
    /// The lookups counted now.
    private(set) var total = 0

    /// An input with `count` lookups entered the stream.
    mutating func open(_ count: Int) -> Run {
        nextID += 1
        runs[nextID] = count
        total += count
        return Run(id: nextID)
    }

    /// `count` lookups of `run` were answered or dropped; the run's last stays counted until it closes.
    mutating func settle(_ run: Run, _ count: Int = 1) {
        guard let left = runs[run.id] else { return }
        let settled = min(count, left - 1)
        guard settled > 0 else { return }
        runs[run.id] = left - settled
        total -= settled
    }

    /// `run` will have `count` lookups, not the number it was opened with (the watched cities
    /// changed before their first round began).
    mutating func resize(_ run: Run, to count: Int) {
        guard let left = runs[run.id] else { return }
        runs[run.id] = count
        total += count - left
    }

    /// The input's outcome goes out: what is left of `run` is settled.
    mutating func close(_ run: Run) {
        guard let left = runs.removeValue(forKey: run.id) else { return }
        total -= left
    }
}
