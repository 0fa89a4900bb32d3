import Foundation
import Testing

@testable import WeatherCore

/// ``ChangeDeliveryState`` event by event: changes go out in the order posted, one deliverer at a time.
@Suite("ChangeDeliveryState: the engine's changes after the turn")
struct ChangeDeliveryStateTests {
    typealias S = ChangeDeliveryState

    static func overlays(_ seq: Int) -> S.Change { .overlays(Overlays(seq: seq, focus: nil, features: [])) }

    @Test("nothing posted: nothing to deliver, and no deliverer is left holding the turn")
    func empty() {
        var s = S()
        #expect(s.startDelivering() == nil && !s.delivering)
    }

    @Test("a deliverer takes what is posted, in order; a second caller meanwhile leaves its changes to it")
    func oneDeliverer() {
        var s = S()
        s.post([Self.overlays(1), Self.overlays(2)])
        #expect(s.startDelivering() == [Self.overlays(1), Self.overlays(2)])
        s.post([Self.overlays(3)])
        #expect(s.startDelivering() == nil, "another caller is delivering")
        #expect(s.delivered() == [Self.overlays(3)], "the deliverer takes it next")
        #expect(s.delivered() == nil && !s.delivering)
        s.post([Self.overlays(4)])
        #expect(s.startDelivering() == [Self.overlays(4)], "the next caller delivers again")
    }
}
