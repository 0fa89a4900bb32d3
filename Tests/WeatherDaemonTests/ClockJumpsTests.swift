import Testing

@testable import WeatherDaemon

/// `ClockJumps`: the wait for a wall-clock jump (a timerfd with TFD_TIMER_CANCEL_ON_SET) that the
/// resume detector uses. The jump itself is not made here: setting the system's clock would disturb
/// everything else on the machine.
@Suite(.timeLimit(.minutes(1))) struct ClockJumpsTests {
    @Test func aWaitEndsWithFalseWhenItsTaskIsCancelledWhileWaiting() async throws {
        let jumps = try #require(ClockJumps(), "a timerfd and an eventfd")
        let waiting = Task { await jumps.next() }
        // Until the thread is about to poll (or polls): then only the eventfd can end the wait.
        while jumps.waitsBegun.load(ordering: .relaxed) == 0 { await Task.yield() }
        waiting.cancel()
        #expect(await waiting.value == false)
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
