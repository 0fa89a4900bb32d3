import Testing

@testable import WeatherDaemon

/// `ClockJumps`: the wait for a wall-clock jump (a timerfd with TFD_TIMER_CANCEL_ON_SET) that the
/// resume detector uses. The jump itself is not made here: setting the system's clock would disturb
/// everything else on the machine.
@Suite(.timeLimit(.minutes(1))) struct ClockJumpsTests {
    @Test func aWaitEndsWithFalseWhenItsTaskIsCancelledWhileWaiting() async throws {
        let jumps = try #require(ClockJumps(), "a timerfd and an eventfd")
        // A real step of this machine's clock during the wait (NTP, the hypervisor: seen once in
        // a full test run here, under load) ends it with true, as it should; that is not what this test is about, so it waits
        // again. A cancellation that does not end the wait still fails, at the time limit.
        var jumped = true
        for _ in 0..<5 where jumped {
            let begun = jumps.waitsBegun.load(ordering: .relaxed)
            let waiting = Task { await jumps.next() }
            // Until the thread is about to poll (or polls): then only the eventfd can end the wait.
            while jumps.waitsBegun.load(ordering: .relaxed) == begun { await Task.yield() }
            waiting.cancel()
            jumped = await waiting.value
        }
        #expect(jumped == false)
        await jumps.close()
    }

    @Test func aWaitThatStartsCancelledEndsAtOnce() async throws {
        let jumps = try #require(ClockJumps())
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await jumps.next()
        }
        #expect(await waiting.value == false)
        await jumps.close()
    }
}
