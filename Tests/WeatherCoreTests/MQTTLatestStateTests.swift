import Testing

@testable import WeatherCore

/// ``MQTTLatestState`` event by event: no broker, no thread, no lock.
@Suite("MQTTLatestState: what is kept and what is dropped while the broker is away, event by event")
struct MQTTLatestStateTests {
    /// Takes what is to publish now, acknowledging each: the topics and payloads, in order.
    static func publishAll(_ state: inout MQTTLatestState) -> [String] {
        var sent: [String] = []
        while let pending = state.next() {
            sent.append("\(pending.topic)=\(pending.payload.encoded)")
            state.published(pending.topic, version: pending.version)
        }
        return sent
    }

    @Test("while the broker is away only the latest payload of each topic is kept; those it replaced are dropped and counted")
    func latestKeptWhileAway() {
        var state = MQTTLatestState()
        state.set("P/D/state", .text("s1"))
        let sent1 = Self.publishAll(&state)
        #expect(sent1 == ["P/D/state=s1"])
        let dropped = state.connectionLost()
        #expect(dropped == 0)
        // Away: three changes of the state, two of the overlays.
        for payload in ["s2", "s3", "s4"] { state.set("P/D/state", .text(payload)) }
        for payload in ["o1", "o2"] { state.set("P/D/overlays", .text(payload)) }
        #expect(state.replacedUnsent == 3, "s2, s3 and o1 never go out; s1 went out before")
        // Back: the latest of each topic, once, in the order the topics were first set.
        let sent2 = Self.publishAll(&state)
        #expect(sent2 == ["P/D/state=s4", "P/D/overlays=o2"])
        let sent3 = Self.publishAll(&state)
        #expect(sent3.isEmpty)
        #expect(state.topicCount == 2)
    }

    @Test("a payload in flight when the connection is lost is kept and goes out again; one replaced in flight is not counted as dropped")
    func inFlightKept() throws {
        var state = MQTTLatestState()
        state.set("P/D/overlays", .text("o1"))
        let next = state.next()
        let taken = try #require(next)
        state.set("P/D/overlays", .text("o2"))  // waits for o1's acknowledgement
        let second = state.next()
        #expect(second == nil)
        #expect(state.replacedUnsent == 0, "o1 was taken: it may have reached the broker")
        _ = state.connectionLost()
        state.published("P/D/overlays", version: taken.version)  // an acknowledgement from the old connection: ignored
        let sent4 = Self.publishAll(&state)
        #expect(sent4 == ["P/D/overlays=o2"])
    }

    @Test("every topic's latest payload goes out again after a lost connection, even one sent before")
    func resentAfterLoss() {
        var state = MQTTLatestState()
        state.set("P/D/state", .text("s1"))
        state.set("P/D/place/latest", .text("x"))
        _ = Self.publishAll(&state)
        _ = state.connectionLost()
        let sent5 = Self.publishAll(&state)
        #expect(sent5 == ["P/D/state=s1", "P/D/place/latest=x"])
        #expect(state.replacedUnsent == 0)
    }

    @Test("replies go out in order; those not taken when the connection is lost are dropped and counted")
    func repliesDropped() {
        var state = MQTTLatestState()
        state.queue(MQTTReply(topic: "P/D/reply", payload: "1"))
        state.queue(MQTTReply(topic: "r", payload: "2", correlation: [7]))
        let taken = state.takeReplies()
        #expect(taken.map(\.payload) == ["1", "2"])
        let none = state.takeReplies()
        #expect(none.isEmpty)
        state.queue(MQTTReply(topic: "P/D/reply", payload: "3"))
        state.queue(MQTTReply(topic: "P/D/reply", payload: "4"))
        let dropped = state.connectionLost()
        #expect(dropped == 2)
        #expect(state.repliesDropped == 2)
        let later = state.takeReplies()
        #expect(later.isEmpty, "never sent on a later connection")
        let again = state.connectionLost()
        #expect(again == 0)
        #expect(state.repliesDropped == 2)
    }

    @Test("a failed payload is not taken again on this connection; a new one tries it once more; replacing it is no drop")
    func failedPayload() throws {
        var state = MQTTLatestState()
        state.set("big", .text("too big"))
        let next = state.next()
        let taken = try #require(next)
        let reported = state.failed("big", version: taken.version)
        #expect(reported)
        let retaken = state.next()
        #expect(retaken == nil)
        _ = state.connectionLost()
        let next2 = state.next()
        let again = try #require(next2)
        #expect(again.version == taken.version)
        let reportedAgain = state.failed("big", version: again.version)
        #expect(!reportedAgain, "reported once")
        state.set("big", .text("smaller"))
        #expect(state.replacedUnsent == 0, "the failed one was tried")
        let sent6 = Self.publishAll(&state)
        #expect(sent6 == ["big=smaller"])
    }

    @Test("a deletion (an empty payload) is forgotten once acknowledged; one replaced before it went out is counted")
    func deletion() {
        var state = MQTTLatestState()
        state.set("gone", .text("x"))
        state.set("gone", .text(""))
        #expect(state.replacedUnsent == 1)
        let sent7 = Self.publishAll(&state)
        #expect(sent7 == ["gone="])
        #expect(state.topicCount == 0)
        _ = state.connectionLost()
        let result10 = state.next()
        #expect(result10 == nil)
    }
}

@Suite("MQTT reconnects with the one backoff of every connection the daemon keeps")
struct MQTTSharedBackoffTests {
    @Test("MQTTReconnect's waits are ReconnectBackoff's (the one gpsd's reader and GeoClue's link use), at most 30 s")
    func sameBackoff() {
        var reconnect = MQTTReconnect()
        var backoff = ReconnectBackoff(maximum: MQTTReconnect.maxBackoff)
        #expect(reconnect.backoff == backoff)
        for _ in 0..<8 {
            guard case .wait(let wait, _) = reconnect.ended(upFor: nil, refusedVersion: false) else { return #expect(Bool(false)) }
            #expect(wait == backoff.current)
            reconnect.waited()
            backoff.lengthen()
        }
        #expect(reconnect.backoff.current == .seconds(30))
    }
}
