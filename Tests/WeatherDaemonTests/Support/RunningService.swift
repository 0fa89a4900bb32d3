import Logging
import ServiceLifecycle

@testable import TestSupport

/// Runs `service` in a `ServiceGroup` while `body` runs, then shuts the group down gracefully and
/// waits for it to end (also when `body` throws).
func withRunning(_ service: some Service, _ body: () async throws -> Void) async throws {
    try await withRunning([service], body)
}

/// Runs `services` in one `ServiceGroup` while `body` runs, then shuts them down gracefully.
func withRunning(_ services: [any Service], _ body: () async throws -> Void) async throws {
    let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) }, logger: silentLogger))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            try await body()
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}
