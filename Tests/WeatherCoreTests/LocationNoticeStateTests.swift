import Testing

@testable import WeatherCore

/// ``LocationNoticeState`` event by event: the time is given, no clock runs.
@Suite("LocationNoticeState: state notifications of the location alone")
struct LocationNoticeStateTests {
    typealias S = LocationNoticeState

    static func at(_ seconds: Double) -> DaemonClock.Instant {
        DaemonClock.Instant(offset: .milliseconds(Int64(seconds * 1000)))
    }

    static let hamilton = Coordinate(lat: -37.7848, lon: 175.3149)
    /// 50 m north of Hamilton's fix: the same place.
    static let near = Coordinate(lat: -37.78435, lon: 175.3149)
    /// 150 m north: moved.
    static let moved = Coordinate(lat: -37.78345, lon: 175.3149)

    @Test("the distances the tests rely on")
    func distances() {
        #expect(Self.hamilton.distance(to: Self.near) < 60 && Self.hamilton.distance(to: Self.near) > 40)
        #expect(Self.hamilton.distance(to: Self.moved) > 140 && Self.hamilton.distance(to: Self.moved) < 160)
    }

    @Test("the first change goes out at once")
    func first() {
        var s = S()
        #expect(s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(0)) == .send)
        #expect(s.heldUntil == nil && s.due(now: Self.at(0)) == nil)
    }

    @Test("staying (a new time, under 100 m away): held until 10 s after the last one sent, then the latest goes out once")
    func staying() {
        var s = S()
        #expect(s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(0)) == .send)
        for second in 1...9 {
            #expect(s.changed(locationOnly: true, location: Self.near, now: Self.at(Double(second))) == .hold(until: Self.at(10)))
        }
        #expect(s.heldUntil == Self.at(10))
        #expect(s.due(now: Self.at(9.999)) == .hold(until: Self.at(10)), "not before its time")
        #expect(s.due(now: Self.at(10)) == .send)
        #expect(s.due(now: Self.at(10.5)) == nil, "sent once")
        #expect(s.heldUntil == nil)
        // A change at 20 s or later goes out at once.
        #expect(s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(19.9)) == .hold(until: Self.at(20)))
        #expect(s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(20)) == .send)
    }

    @Test("a late timer sends at its own time, and the next 10 s count from then")
    func lateTimer() {
        var s = S()
        _ = s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(0))
        _ = s.changed(locationOnly: true, location: Self.near, now: Self.at(1))
        #expect(s.due(now: Self.at(12)) == .send)
        #expect(s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(13)) == .hold(until: Self.at(22)))
    }

    @Test("moving (100 m or more from the one last sent): once a second")
    func moving() {
        var s = S()
        _ = s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(0))
        #expect(s.changed(locationOnly: true, location: Self.moved, now: Self.at(0.5)) == .hold(until: Self.at(1)))
        #expect(s.due(now: Self.at(1)) == .send)
        #expect(s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(2)) == .send, "150 m back: moved again")
    }

    @Test("a held change that moves on brings its due time forward; one that comes back puts it off again")
    func heldMovesOn() {
        var s = S()
        _ = s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(0))
        #expect(s.changed(locationOnly: true, location: Self.near, now: Self.at(0.3)) == .hold(until: Self.at(10)))
        #expect(s.changed(locationOnly: true, location: Self.moved, now: Self.at(0.6)) == .hold(until: Self.at(1)))
        #expect(s.heldUntil == Self.at(1))
        #expect(s.changed(locationOnly: true, location: Self.near, now: Self.at(0.9)) == .hold(until: Self.at(10)))
        #expect(s.due(now: Self.at(1)) == .hold(until: Self.at(10)))
        #expect(s.changed(locationOnly: true, location: Self.moved, now: Self.at(3)) == .send, "moved, and a second is up")
    }

    @Test("any other change goes out at once, carrying the held location; nothing is sent twice")
    func otherChange() {
        var s = S()
        #expect(s.changed(locationOnly: false, location: nil, now: Self.at(0)) == .send)
        #expect(s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(0.1)) == .send, "the first at once")
        #expect(s.changed(locationOnly: true, location: Self.near, now: Self.at(1)) == .hold(until: Self.at(10.1)))
        #expect(s.changed(locationOnly: false, location: Self.near, now: Self.at(2)) == .send)
        #expect(s.due(now: Self.at(10.1)) == nil, "the held one went with it")
        #expect(s.changed(locationOnly: false, location: Self.hamilton, now: Self.at(2.5)) == .send, "never held back")
        // Moving is counted from the location that notification carried.
        #expect(s.changed(locationOnly: true, location: Self.moved, now: Self.at(3)) == .send, "150 m from it, 1 s after the last")
        #expect(s.changed(locationOnly: true, location: Self.moved, now: Self.at(3.5)) == .hold(until: Self.at(13)))
    }

    @Test("a location found or lost is a move: once a second")
    func foundOrLost() {
        var s = S()
        #expect(s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(0)) == .send)
        #expect(s.changed(locationOnly: true, location: nil, now: Self.at(0.5)) == .hold(until: Self.at(1)))
        #expect(s.due(now: Self.at(1)) == .send)
        #expect(s.changed(locationOnly: true, location: Self.hamilton, now: Self.at(1.2)) == .hold(until: Self.at(2)))
        #expect(s.due(now: Self.at(2)) == .send)
    }

    @Test("a receiver reporting the same place every second for a minute: 7 notifications, not 61")
    func aMinute() {
        var s = S()
        var sent = 0
        for tick in 0...60 {
            let now = Self.at(Double(tick))
            if s.due(now: now) == .send { sent += 1 }
            if s.changed(locationOnly: true, location: tick % 2 == 0 ? Self.hamilton : Self.near, now: now) == .send { sent += 1 }
        }
        #expect(sent == 7)
    }
}
