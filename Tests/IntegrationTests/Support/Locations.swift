import Foundation
import WeatherCore

@testable import TestSupport

/// `locate` with `{"timeout": seconds}`, failing the test if no answer comes at all (a hang).
func locate(_ daemon: DaemonProcess, timeout seconds: Double = 30) async throws -> JSONValue {
    try await withTimeout(safetyDeadline, "locate to answer") {
        try await daemon.call("locate", ["timeout": .double(seconds)])
    }
}

/// Waits for a state notification whose `gps.connected` is `connected` (the replayed state counts).
func awaitConnected(_ watcher: Watcher, _ connected: Bool, timeout: Duration = safetyDeadline) async throws {
    try await watcher.next("a state with gps.connected \(connected)", timeout: timeout) {
        $0.isStateNotification && $0.params?["gps"]?["connected"]?.boolValue == connected
    }
}
