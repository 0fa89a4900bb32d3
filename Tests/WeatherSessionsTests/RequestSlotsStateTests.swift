import Testing

@testable import WeatherSessions

@Suite("RequestSlotsState: at most limit requests of a client at once, event by event")
struct RequestSlotsStateTests {
    @Test("takes up to the limit, then waits; a give lets the next one in")
    func limit() {
        var slots = RequestSlotsState(limit: 2)
        #expect(slots.take() == true)
        #expect(slots.take() == true)
        #expect(slots.take() == nil)
        slots.give()
        #expect(slots.take() == true)
    }

    @Test("all free only once every request gave its slot back")
    func allFree() {
        var slots = RequestSlotsState(limit: 2)
        #expect(slots.allFree == true)
        _ = slots.take()
        #expect(slots.allFree == nil)
        slots.give()
        #expect(slots.allFree == true)
    }

    @Test("a hang-up refuses every take and wait from then on, also while requests still run")
    func close() {
        var slots = RequestSlotsState(limit: 1)
        _ = slots.take()
        slots.close()
        #expect(slots.take() == false)
        #expect(slots.allFree == false)
        slots.give()
        #expect(slots.allFree == false)
        #expect(slots.take() == false)
    }
}
