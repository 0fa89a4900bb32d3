import Testing

@testable import WeatherCore

@Suite("ReconnectBackoff and MQTTReconnect: when the daemon connects again, event by event")
struct MQTTReconnectTests {
    @Test("the backoff doubles from 1 s to its maximum, and starts again after a reset")
    func backoff() {
        var backoff = ReconnectBackoff(maximum: .seconds(30))
        var waits: [Duration] = []
        for _ in 0..<7 {
            waits.append(backoff.current)
            backoff.lengthen()
        }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30].map { .seconds($0) })
        backoff.reset()
        #expect(backoff.current == .seconds(1))
    }

    @Test("a broker that refuses MQTT 5 is asked again at once with 3.1.1, once")
    func version() {
        var reconnect = MQTTReconnect()
        #expect(reconnect.ended(upFor: nil, refusedVersion: true) == .retryWithVersion311)
        #expect(!reconnect.version5)
        #expect(reconnect.ended(upFor: nil, refusedVersion: true) == .wait(.seconds(1), .cannotConnect(first: true)))
    }

    @Test("failed attempts wait 1, 2, 4 s…; only the first is reported as a warning")
    func cannotConnect() {
        var reconnect = MQTTReconnect()
        #expect(reconnect.ended(upFor: nil, refusedVersion: false) == .wait(.seconds(1), .cannotConnect(first: true)))
        reconnect.waited()
        #expect(reconnect.ended(upFor: nil, refusedVersion: false) == .wait(.seconds(2), .cannotConnect(first: false)))
        reconnect.waited()
        #expect(reconnect.ended(upFor: nil, refusedVersion: false) == .wait(.seconds(4), .cannotConnect(first: false)))
    }

    @Test("a connection that lasted starts again from 1 s; one lost soon (a session taken over) lets the wait grow")
    func lasting() {
        var reconnect = MQTTReconnect()
        for _ in 0..<3 {
            _ = reconnect.ended(upFor: nil, refusedVersion: false)
            reconnect.waited()
        }
        #expect(reconnect.ended(upFor: .seconds(5), refusedVersion: false) == .wait(.seconds(8), .lostSoon(upFor: .seconds(5))))
        reconnect.waited()
        #expect(reconnect.ended(upFor: .seconds(60), refusedVersion: false) == .wait(.seconds(1), .lostAfterLasting))
        reconnect.waited()
        #expect(reconnect.backoff.current == .seconds(1), "no growth after a connection that lasted")
        #expect(reconnect.ended(upFor: nil, refusedVersion: false) == .wait(.seconds(1), .cannotConnect(first: true)))
    }
}
