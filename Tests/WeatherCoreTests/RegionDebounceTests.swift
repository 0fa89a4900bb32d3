import Testing

@testable import WeatherCore

/// The debounce's rule, event by event: only the last event of a burst, once `interval` has passed
/// after it.
@Suite("RegionDebounce")
struct RegionDebounceTests {
    private func at(_ milliseconds: Int) -> DaemonClock.Instant { .init(offset: .milliseconds(milliseconds)) }

    @Test("nothing pending: nothing due, no deadline")
    func empty() {
        var debounce = RegionDebounce<String>(interval: .milliseconds(250))
        #expect(debounce.due == nil)
        #expect(debounce.takeDue(at: at(10_000)) == nil)
    }

    @Test("an event is due a whole interval after it, not a moment before, and only once")
    func oneEvent() {
        var debounce = RegionDebounce<String>(interval: .milliseconds(250))
        debounce.take("a", at: at(100))
        #expect(debounce.due == at(350))
        #expect(debounce.takeDue(at: at(349)) == nil)
        #expect(debounce.takeDue(at: at(350)) == "a")
        #expect(debounce.due == nil)
        #expect(debounce.takeDue(at: at(1_000)) == nil)
    }

    @Test("a newer event replaces the pending one and starts the interval again")
    func burst() {
        var debounce = RegionDebounce<String>(interval: .milliseconds(250))
        debounce.take("a", at: at(0))
        debounce.take("b", at: at(200))
        #expect(debounce.takeDue(at: at(250)) == nil, "a was replaced; b is due at 450")
        #expect(debounce.due == at(450))
        debounce.take("c", at: at(400))
        #expect(debounce.takeDue(at: at(649)) == nil)
        #expect(debounce.takeDue(at: at(650)) == "c")
    }

    @Test("a new interval applies to the events taken after it")
    func newInterval() {
        var debounce = RegionDebounce<String>(interval: .milliseconds(250))
        debounce.take("a", at: at(0))
        debounce.interval = .seconds(1)
        #expect(debounce.due == at(250))
        #expect(debounce.takeDue(at: at(250)) == "a")
        debounce.take("b", at: at(300))
        #expect(debounce.due == at(1_300))
    }
}
