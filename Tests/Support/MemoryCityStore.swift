import Synchronization

@testable import WeatherCore

/// A `CityStore` in memory that counts saves, can be made to fail, and can hold saves until the
/// test releases them (as a slow disk would).
final class MemoryCityStore: CityStore, Sendable {
    struct SaveFailed: Error {}

    private struct State {
        var changes: CityChanges
        var saves = 0
        var failing = false
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    /// How many saves wait to be released.
    private let heldCount = Observed(0)

    init(_ changes: CityChanges = CityChanges()) {
        state = Mutex(State(changes: changes))
    }

    /// What is stored now.
    var stored: CityChanges { state.withLock { $0.changes } }
    var saveCount: Int { state.withLock { $0.saves } }

    /// Makes every later save throw.
    func failSaves() { state.withLock { $0.failing = true } }

    /// Makes every later save wait for ``releaseSave()``.
    func holdSaves() { state.withLock { $0.holding = true } }

    /// Lets the oldest held save go on.
    func releaseSave() {
        let save = state.withLock { $0.held.isEmpty ? nil : $0.held.removeFirst() }
        heldCount.update { $0 -= 1 }
        save?.resume()
    }

    /// Returns once `count` saves are held.
    func waitForHeldSaves(_ count: Int) async {
        _ = try? await heldCount.wait(for: "\(count) saves held", timeout: .seconds(3600)) { $0 >= count ? () : nil }
    }

    func load() throws -> CityChanges { state.withLock { $0.changes } }

    func save(_ changes: CityChanges) async throws {
        if state.withLock({ $0.holding }) {
            await withCheckedContinuation { continuation in
                state.withLock { $0.held.append(continuation) }
                heldCount.update { $0 += 1 }
            }
        }
        try state.withLock { state in
            if state.failing { throw SaveFailed() }
            state.changes = changes
            state.saves += 1
        }
    }
}
