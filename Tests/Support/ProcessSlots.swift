import Foundation
import Synchronization
import Testing

/// Who holds a process slot: a test (all the processes one test starts share its slot, so a test
/// that holds one never waits for another, and no two tests can deadlock on slots), or a process
/// started outside any test.
enum ProcessSlotHolder: Hashable, Sendable {
    case test(Test.ID)
    case alone(Int)

    private static let nextAlone = Atomic<Int>(0)

    /// The running test (its parameterized cases count as one), else a holder of its own.
    static var current: ProcessSlotHolder {
        if let test = Test.current { return .test(test.id) }
        return .alone(nextAlone.add(1, ordering: .relaxed).newValue)
    }
}

/// Which tests may run child processes now: at most `capacity` tests at once, each holding its slot
/// while any process it started still runs. A plain state machine: events in, actions (whom to
/// resume) out; `ProcessSlots` runs it under a lock.
struct ProcessSlotsState {
    private(set) var capacity: Int
    /// The holders and how many live processes each has.
    private(set) var holders: [ProcessSlotHolder: Int] = [:]
    /// Those waiting for a slot, first come first served.
    private(set) var waiting: [(id: Int, holder: ProcessSlotHolder)] = []

    init(capacity: Int) {
        precondition(capacity > 0, "at least one slot")
        self.capacity = capacity
    }

    enum AcquireAction: Equatable {
        /// The process may start now.
        case start
        /// Every slot is held by other tests: wait until `released` or `cancelled` resumes this waiter.
        case wait
    }

    /// A process of `holder` is about to start (`id` names the waiter, should it have to wait).
    mutating func acquire(_ id: Int, for holder: ProcessSlotHolder) -> AcquireAction {
        if let count = holders[holder] {
            holders[holder] = count + 1
            return .start
        }
        if holders.count < capacity && waiting.isEmpty {
            holders[holder] = 1
            return .start
        }
        waiting.append((id, holder))
        return .wait
    }

    /// A process of `holder` ended (or never started). Returns the waiters that may start now.
    mutating func released(by holder: ProcessSlotHolder) -> [Int] {
        guard let count = holders[holder] else { return [] }
        holders[holder] = count > 1 ? count - 1 : nil
        return admit()
    }

    /// A waiter's task was cancelled: returns true when it was still waiting (resume it, it got no
    /// slot); false when it was admitted already (it holds its slot).
    mutating func cancelled(_ id: Int) -> Bool {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return false }
        waiting.remove(at: index)
        return true
    }

    /// Admits waiters in order: those whose test holds a slot already, and the next ones while
    /// slots are free.
    private mutating func admit() -> [Int] {
        var admitted: [Int] = []
        var index = 0
        while index < waiting.count {
            let (id, holder) = waiting[index]
            if let count = holders[holder] {
                holders[holder] = count + 1
            } else if holders.count < capacity {
                holders[holder] = 1
            } else {
                index += 1
                continue
            }
            admitted.append(id)
            waiting.remove(at: index)
        }
        return admitted
    }
}

/// Bounds how many tests run child processes (daemons, owm-replay, gpsd, brokers, weatherctl) at
/// once, whatever the test runner's parallelism: hundreds of processes started together leave the
/// test process's own threads (its cooperative pool has one per core) too little of the machine.
/// A test waits for a slot before its first process starts and keeps it while any of its processes
/// runs; the tests that start none are not held back.
final class ProcessSlots: Sendable {
    /// Every `ChildProcess` passes through this one: four tests per core (each runs about three
    /// processes, which mostly wait).
    static let shared = ProcessSlots(capacity: 4 * max(1, ProcessInfo.processInfo.activeProcessorCount))

    private struct Storage {
        var state: ProcessSlotsState
        var nextID = 0
        var continuations: [Int: CheckedContinuation<Void, any Error>] = [:]
    }

    private let storage: Mutex<Storage>

    init(capacity: Int) {
        storage = Mutex(Storage(state: ProcessSlotsState(capacity: capacity)))
    }

    /// Waits for a slot for `holder` (at once when its test holds one already) and returns it; the
    /// slot is given back by `ProcessSlot.release()` (or when the `ProcessSlot` goes away).
    /// Throws `CancellationError` when the task is cancelled while waiting.
    func acquire(for holder: ProcessSlotHolder = .current) async throws -> ProcessSlot {
        let id = storage.withLock { storage in
            defer { storage.nextID += 1 }
            return storage.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let startNow = storage.withLock { storage in
                    if Task.isCancelled { return Result<Bool, any Error>.failure(CancellationError()) }
                    switch storage.state.acquire(id, for: holder) {
                    case .start: return .success(true)
                    case .wait:
                        storage.continuations[id] = continuation
                        return .success(false)
                    }
                }
                switch startNow {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter = storage.withLock { storage in
                storage.state.cancelled(id) ? storage.continuations.removeValue(forKey: id) : nil
            }
            waiter?.resume(throwing: CancellationError())
        }
        return ProcessSlot(slots: self, holder: holder)
    }

    fileprivate func release(by holder: ProcessSlotHolder) {
        let admitted = storage.withLock { storage in
            storage.state.released(by: holder).compactMap { storage.continuations.removeValue(forKey: $0) }
        }
        for waiter in admitted { waiter.resume() }
    }
}

/// One process's share of its test's slot; given back once, by `release()` or when it goes away.
final class ProcessSlot: Sendable {
    private let slots: ProcessSlots
    private let holder: ProcessSlotHolder
    private let released = Atomic<Bool>(false)

    fileprivate init(slots: ProcessSlots, holder: ProcessSlotHolder) {
        self.slots = slots
        self.holder = holder
    }

    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        slots.release(by: holder)
    }

    deinit {
        release()
    }
}

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a suite whose tests start processes: a real hang's, long enough to count the
    /// wait for a process slot behind the other tests' on a busy machine too.
    static var processTimeLimit: Self { .timeLimit(.minutes(20)) }
}
