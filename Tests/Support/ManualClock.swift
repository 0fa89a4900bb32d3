import Synchronization

/// A clock whose time moves only when a test calls `advance(by:)`. Sleepers whose deadline has
/// passed are resumed by the advance; a cancelled sleeper throws `CancellationError` at once.
/// `waitForSleepers(_:)` lets a test await "n tasks are sleeping" instead of guessing.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol, Hashable {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Sleepers cancelled before they were registered.
        var cancelledEarly: Set<Int> = []
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// How often `now` was read.
        var reads = 0
        var readWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    /// Bumped after every change of the sleepers, for waits with a deadline.
    private let changes = Observed(0)

    init() {}

    var now: Instant {
        let (now, ready) = state.withLock { state in
            state.reads += 1
            return (state.now, Self.takeReady(&state.readWaiters, reached: state.reads))
        }
        for waiter in ready { waiter.resume() }
        return now
    }

    var minimumResolution: Duration { .nanoseconds(1) }

    /// Tasks sleeping now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// How often `now` was read so far.
    var readCount: Int { state.withLock { $0.reads } }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Action {
                    case resume, cancel
                    case wait([CheckedContinuation<Void, Never>])
                }
                let action: Action = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .cancel }
                    if deadline <= state.now { return .resume }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .wait(Self.takeReady(&state.sleeperWaiters, reached: state.sleepers.count))
                }
                switch action {
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait(let ready):
                    changes.update { $0 += 1 }
                    for waiter in ready { waiter.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            changes.update { $0 += 1 }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and resumes every sleeper whose deadline is now due, earliest first.
    func advance(by duration: Duration) {
        precondition(duration >= .zero, "time only moves forward")
        let due = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.map(\.value.continuation)
        }
        changes.update { $0 += 1 }
        for continuation in due { continuation.resume() }
    }

    /// When the tasks sleeping now are to wake, as offsets from now, soonest first.
    var sleepingUntil: [Duration] {
        state.withLock { state in state.sleepers.values.map { state.now.duration(to: $0.deadline) }.sorted() }
    }

    /// Returns once at least `count` tasks are sleeping on this clock; throws `TimeoutError` when
    /// that did not happen within `timeout` (of real time).
    func waitForSleepers(_ count: Int, timeout: Duration) async throws {
        _ = try await changes.wait(for: "\(count) task(s) sleeping on the manual clock (\(sleeperCount) now)", timeout: timeout) { _ in
            self.sleeperCount >= count ? true : nil
        }
    }

    /// Returns once a task sleeps until `offset` from now; throws `TimeoutError` when none did
    /// within `timeout` (of real time).
    func waitForSleeper(until offset: Duration, timeout: Duration = safetyDeadline) async throws {
        _ = try await changes.wait(for: "a task sleeping on the manual clock for \(offset) (\(sleepingUntil) now)", timeout: timeout) { _ in
            self.sleepingUntil.contains(offset) ? true : nil
        }
    }

    /// Returns once at least `count` tasks are sleeping on this clock.
    func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Returns once `now` has been read at least `count` times in all.
    func waitForReads(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.reads >= count { return true }
                state.readWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    private static func takeReady(
        _ waiters: inout [(count: Int, continuation: CheckedContinuation<Void, Never>)], reached: Int
    ) -> [CheckedContinuation<Void, Never>] {
        let ready = waiters.filter { $0.count <= reached }.map(\.continuation)
        waiters.removeAll { $0.count <= reached }
        return ready
    }
}
