import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherSessions

/// ``RequestSlots/admit(into:admitting:stillWanted:_:)``: the one ordered admission of a client
/// session's requests and of MQTT's request topic, driven by events (no clock, no sleeping).
@Suite("Ordered admission: a session's and MQTT's requests enter the stream in the order they came", .timeLimit(.minutes(1)))
struct OrderedAdmissionTests {
    /// What the requests did, in order.
    final class Log: Sendable {
        private let events = Mutex<[String]>([])
        func record(_ event: String) { events.withLock { $0.append(event) } }
        var all: [String] { events.withLock { $0 } }
    }

    @Test("each request starts only once the one before it entered the stream; their slow parts run side by side")
    func inOrder() async {
        let slots = RequestSlots(limit: 16)
        let log = Log()
        let slow = Gate()
        await withDiscardingTaskGroup { group in
            for index in 0..<4 {
                let admitted = await slots.admit(into: &group) { admission in
                    log.record("start \(index)")
                    log.record("entered \(index)")
                    admission.open()
                    await slow.pass()  // the lookup, after entering
                }
                #expect(admitted)
            }
            // All four entered while the first is still running: they run side by side.
            await slow.waitForArrivals(4)
            slow.open()
        }
        #expect(log.all == (0..<4).flatMap { ["start \($0)", "entered \($0)"] })
        #expect(await slots.allFree())
    }

    @Test("a request that never enters the stream admits the next once it is done")
    func doneWithoutEntering() async {
        let slots = RequestSlots(limit: 16)
        let log = Log()
        await withDiscardingTaskGroup { group in
            for index in 0..<3 {
                #expect(await slots.admit(into: &group) { _ in log.record("done \(index)") })
            }
        }
        #expect(log.all == ["done 0", "done 1", "done 2"])
    }

    @Test("at most `limit` run at once: the next starts only when one gives its slot back")
    func limit() async {
        let slots = RequestSlots(limit: 2)
        let held = Gate()
        let log = Log()
        await withDiscardingTaskGroup { group in
            for _ in 0..<2 {
                #expect(
                    await slots.admit(into: &group) { admission in
                        admission.open()
                        await held.pass()
                    })
            }
            group.addTask {
                await held.waitForArrivals(2)
                log.record("released")
                held.open()
            }
            // Both slots taken: this one starts once one of them is given back, after the release.
            #expect(
                await slots.admit(into: &group) { admission in
                    log.record("third started")
                    admission.open()
                })
        }
        #expect(log.all == ["released", "third started"])
    }

    @Test("once the slots are closed (the client hung up, the MQTT publisher stops) nothing more is admitted or run")
    func closed() async {
        let slots = RequestSlots(limit: 16)
        slots.close()
        let log = Log()
        await withDiscardingTaskGroup { group in
            #expect(await slots.admit(into: &group) { _ in log.record("ran") } == false)
        }
        #expect(log.all.isEmpty)
    }

    @Test("a client gone meanwhile: the request runs, but the reader does not wait for it to enter")
    func goneMeanwhile() async {
        let slots = RequestSlots(limit: 16)
        let never = Gate()
        let seen = Mutex<Admission?>(nil)
        await withDiscardingTaskGroup { group in
            let admitted = await slots.admit(
                into: &group, admitting: { admission in seen.withLock { $0 = admission } }, stillWanted: { false }
            ) { _ in await never.pass() }
            #expect(!admitted)
            #expect(seen.withLock { $0 } != nil, "the admission was handed over before the request started")
            never.open()
        }
    }
}
