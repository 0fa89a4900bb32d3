import Foundation
import Testing

@testable import WeatherCore

/// What of a ``DaemonState`` change is news: ``DaemonState/sameFields(as:)`` (no notification for
/// the time, the budget's `used` or the providers' request counts alone) and
/// ``DaemonState/changesOnlyLocation(from:)`` (a change of the location alone, throttled).
@Suite("DaemonState: which changes are news")
struct DaemonStateNewsTests {
    static let base = DaemonState(
        pending: 0, phase: .populated, input: .text(city: "London"), gps: GPSStatus(enabled: true, connected: true),
        providers: [ProviderStatus(name: .openMeteo, usable: true)], updatedAt: Date(timeIntervalSince1970: 1_700_000_000))

    static func fix(_ lat: Double) -> GPSFix {
        GPSFix(coordinate: Coordinate(lat: lat, lon: 175.3149), horizontalError: 5, mode: 3, at: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("the time, the budget's used and the providers' request counts alone are no news")
    func countsAlone() {
        var next = Self.base
        next.updatedAt = next.updatedAt.addingTimeInterval(5)
        next.budget.used += 3
        next.providers[0].usedMinute = 7
        next.providers[0].usedDay = 70
        #expect(next.sameFields(as: Self.base))
        #expect(Self.base.sameFields(as: next))
    }

    @Test("a search's input, phase, count or error is news, with the counts changed too or not")
    func searchFields() {
        var changes: [DaemonState] = []
        for change in 0..<4 {
            var next = Self.base
            next.providers[0].usedMinute = 1
            switch change {
            case 0: next.input = .text(city: "Paris")
            case 1: next.phase = .loading
            case 2: next.pending = 1
            default:
                next.phase = .error
                next.error = WeatherError(.upstreamUnavailable, "upstream unavailable")
            }
            changes.append(next)
        }
        for next in changes {
            #expect(!next.sameFields(as: Self.base))
            #expect(!next.changesOnlyLocation(from: Self.base))
        }
    }

    @Test("a field beside the search's is news too: a provider's health, gpsd's connection")
    func otherFields() {
        var unusable = Self.base
        unusable.providers[0].usable = false
        var disconnected = Self.base
        disconnected.gps.connected = false
        for next in [unusable, disconnected] {
            #expect(!next.sameFields(as: Self.base))
            #expect(!next.changesOnlyLocation(from: Self.base))
        }
    }

    @Test("a new fix alone changes only the location; with a new input it is more than that")
    func locationAlone() {
        var moved = Self.base
        moved.gps.lastFix = Self.fix(-37.78)
        #expect(!moved.sameFields(as: Self.base))
        #expect(moved.changesOnlyLocation(from: Self.base))
        var searched = moved
        searched.input = .location(Coordinate(lat: -37.78, lon: 175.3149))
        #expect(!searched.changesOnlyLocation(from: Self.base))
    }
}
