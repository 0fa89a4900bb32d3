import Testing

@testable import WeatherSessions

/// When a client's message may be answered at once by the transport's thread, event by event.
@Suite("AtOnceState: answered at once only while nothing of the client's is unfinished")
struct AtOnceStateTests {
    @Test("not before the session reads: a message then goes to the reader and is unfinished")
    func beforeReading() {
        var state = AtOnceState()
        #expect(!state.mayAnswer)
        state.handedOver()
        state.started()
        #expect(!state.mayAnswer, "the message before is not done")
        state.finished()
        #expect(state.mayAnswer)
    }

    @Test("while any message handed over is not done, none is answered at once; once all are, one is")
    func unfinished() {
        var state = AtOnceState()
        state.started()
        #expect(state.mayAnswer)
        state.handedOver()
        state.handedOver()
        #expect(!state.mayAnswer)
        state.finished()
        #expect(!state.mayAnswer, "one is still running")
        state.finished()
        #expect(state.mayAnswer)
    }

    @Test("once the session reads no more, nothing is answered at once")
    func stopped() {
        var state = AtOnceState()
        state.started()
        state.stopped()
        #expect(!state.mayAnswer)
    }
}
