import Synchronization

/// The cached answers of one kind (weather, places, air quality), each until it expires, under a
/// lock: ``LookupService`` writes them from its actor and reads them there, and a connection's event
/// loop reads them in its own thread for an answer made at once (``LookupService/cached(_:)``). At
/// most ``LookupService/maxCacheEntries``: a new answer beyond them makes room, the expired first,
/// else the oldest.
final class CachedAnswers<Answer: Sendable>: Sendable {
    private struct Entry {
        var answer: Answer
        var expires: DaemonClock.Instant
    }

    private let entries = Mutex<[LookupKey: Entry]>([:])

    init() {}

    /// The unexpired answer for `key`; an expired one goes.
    func answer(for key: LookupKey, now: DaemonClock.Instant) -> Answer? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            if now < entry.expires { return entry.answer }
            entries[key] = nil
            return nil
        }
    }

    /// Keeps `answer` for `key` until `expires`, making room first when the cache is full.
    func keep(_ answer: Answer, for key: LookupKey, until expires: DaemonClock.Instant, now: DaemonClock.Instant) {
        entries.withLock { entries in
            if entries.count >= LookupService.maxCacheEntries {
                entries = entries.filter { now < $0.value.expires }
                if entries.count >= LookupService.maxCacheEntries,
                    let oldest = entries.min(by: { $0.value.expires < $1.value.expires })?.key
                {
                    entries[oldest] = nil
                }
            }
            entries[key] = Entry(answer: answer, expires: expires)
        }
    }

    /// Every answer expires `suspended` sooner; those already expired at `now` go.
    func age(by suspended: Duration, now: DaemonClock.Instant) {
        entries.withLock { entries in
            for (key, entry) in entries {
                let expires = entry.expires.advanced(by: .zero - suspended)
                entries[key] = now < expires ? Entry(answer: entry.answer, expires: expires) : nil
            }
        }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
