import Synchronization

@testable import TestSupport
@testable import WeatherCore

/// A `CityStore` in memory that counts saves and can be made to fail.
final class MemoryCityStore: CityStore, Sendable {
    struct SaveFailed: Error {}

    private struct State {
        var changes: CityChanges
        var saves = 0
        var failing = false
    }

    private let state: Mutex<State>

    init(_ changes: CityChanges = CityChanges()) {
        state = Mutex(State(changes: changes))
    }

    /// What is stored now.
    var stored: CityChanges { state.withLock { $0.changes } }
    var saveCount: Int { state.withLock { $0.saves } }

    /// Makes every later save throw.
    func failSaves() { state.withLock { $0.failing = true } }

    func load() throws -> CityChanges { state.withLock { $0.changes } }

    func save(_ changes: CityChanges) throws {
        try state.withLock { state in
            if state.failing { throw SaveFailed() }
            state.changes = changes
            state.saves += 1
        }
    }
}
