import Foundation
import Testing

@testable import WeatherCore
@testable import WeatherSessions

/// ``HubState`` driven event by event, with its deliveries handed to ``OutboxState``s as the hub
/// hands them over, in any order.
@Suite("HubState: the fan-out, event by event")
struct HubStateTests {
    private final class Watcher {
        var queue = OutboxState<Never, Int>(maxReplies: 64, maxReplyBytes: 1 << 20)
        init() { queue.watch(diff: false) }

        func receive(_ delivery: HubState<Watcher, Watcher>.Delivery) {
            _ = queue.offer(delivery.topic, delivery.notice, version: delivery.version)
        }

        /// The `pending` of each state line waiting, and the `seq` of each overlays.
        func taken() -> [String] {
            var taken: [String] = []
            while true {
                switch queue.take().taken {
                case .line(let line):
                    let pending = (try? JSONValue.parse(Array(line.utf8)))?["params"]?["pending"]?.intValue ?? -1
                    taken.append("state \(pending)")
                case .overlays(let edition, _, _, _): taken.append("overlays \(edition.overlays.seq)")
                case .none, .finished: return taken
                }
            }
        }
    }

    private func state(_ pending: Int) -> DaemonState {
        DaemonState(
            pending: pending, phase: .loading, input: nil, gps: GPSStatus(enabled: false), updatedAt: Date(timeIntervalSince1970: 0))
    }

    private func overlays(_ seq: Int) -> Overlays { Overlays(seq: seq, focus: nil, features: []) }

    @Test("with nobody watching nothing is delivered; a later watch with replay gets the latest of each topic")
    func replay() {
        var hub = HubState<Watcher, Watcher>()
        #expect(hub.publish(state: state(1)) == nil)
        #expect(hub.publish(overlays: overlays(1), texts: nil) == nil)
        #expect(hub.publish(state: state(2)) == nil)
        let watcher = Watcher()
        for delivery in hub.watch(watcher, topics: [.state, .overlays], replay: true) { watcher.receive(delivery) }
        #expect(watcher.taken() == ["state 2", "overlays 1"])
        #expect(hub.watch(Watcher(), topics: [.state], replay: false).isEmpty)
    }

    @Test("a publish goes to the watchers of its topic only")
    func topics() {
        var hub = HubState<Watcher, Watcher>()
        let states = Watcher()
        let both = Watcher()
        _ = hub.watch(states, topics: [.state], replay: false)
        _ = hub.watch(both, topics: [.state, .overlays], replay: false)
        #expect(hub.watcherCount == 2)
        let overlaysDelivery = hub.publish(overlays: overlays(1), texts: nil)
        #expect(overlaysDelivery?.subscribers.map(ObjectIdentifier.init) == [ObjectIdentifier(both)])
        let stateDelivery = hub.publish(state: state(1))
        #expect(Set(stateDelivery?.subscribers.map(ObjectIdentifier.init) ?? []) == [ObjectIdentifier(states), ObjectIdentifier(both)])
        hub.unwatch(both)
        #expect(hub.publish(overlays: overlays(2), texts: nil) == nil)
        #expect(hub.watcherCount == 1)
    }

    @Test("a publish and a watch's replay that cross, handed over in either order, leave the newest waiting")
    func crossing() {
        for replayFirst in [false, true] {
            var hub = HubState<Watcher, Watcher>()
            _ = hub.publish(state: state(1))
            let watcher = Watcher()
            let replay = hub.watch(watcher, topics: [.state], replay: true)  // state 1
            let publish = hub.publish(state: state(2))!
            if replayFirst {
                replay.forEach(watcher.receive)
                watcher.receive(publish)
            } else {
                watcher.receive(publish)
                replay.forEach(watcher.receive)
            }
            #expect(watcher.taken() == ["state 2"], "replay handed over \(replayFirst ? "first" : "last")")
        }
    }

    @Test("a route's watchers are handed over to the route, once for all of them; the others one by one")
    func routes() {
        var hub = HubState<Watcher, Watcher>()
        let loopA = Watcher()
        let loopB = Watcher()
        let a1 = Watcher()
        let a2 = Watcher()
        let b1 = Watcher()
        let alone = Watcher()
        for (watcher, route) in [(a1, loopA), (a2, loopA), (b1, loopB)] {
            _ = hub.watch(watcher, topics: [.state, .overlays], replay: false, route: (ObjectIdentifier(route), route))
        }
        _ = hub.watch(alone, topics: [.state], replay: false)
        let delivery = hub.publish(state: state(1))
        #expect(delivery?.subscribers.map(ObjectIdentifier.init) == [ObjectIdentifier(alone)])
        let routed = Dictionary(
            uniqueKeysWithValues: (delivery?.routed ?? []).map {
                (ObjectIdentifier($0.route), Set($0.subscribers.map(ObjectIdentifier.init)))
            })
        #expect(
            routed == [
                ObjectIdentifier(loopA): [ObjectIdentifier(a1), ObjectIdentifier(a2)], ObjectIdentifier(loopB): [ObjectIdentifier(b1)],
            ])
        #expect(hub.publish(overlays: overlays(1), texts: nil)?.subscribers.isEmpty == true, "alone watches the state only")
    }

    @Test("watchers leave a route's lists in any order; a new watch moves one to its new topics; an empty route is dropped")
    func routeLists() {
        var hub = HubState<Watcher, Watcher>()
        let loop = Watcher()
        let watchers = (0..<5).map { _ in Watcher() }
        for watcher in watchers {
            _ = hub.watch(watcher, topics: [.state, .overlays], replay: false, route: (ObjectIdentifier(loop), loop))
        }
        func routed(_ topic: Outbox.Topic) -> Set<ObjectIdentifier> {
            let delivery = topic == .state ? hub.publish(state: state(1)) : hub.publish(overlays: overlays(1), texts: nil)
            return Set(delivery?.routed.flatMap { $0.subscribers.map(ObjectIdentifier.init) } ?? [])
        }
        hub.unwatch(watchers[1])  // from the middle: the last moves into its place
        hub.unwatch(watchers[4])  // the last
        _ = hub.watch(watchers[0], topics: [.overlays], replay: false, route: (ObjectIdentifier(loop), loop))
        #expect(routed(.state) == Set([watchers[2], watchers[3]].map(ObjectIdentifier.init)))
        #expect(routed(.overlays) == Set([watchers[0], watchers[2], watchers[3]].map(ObjectIdentifier.init)))
        hub.unwatch(watchers[3])  // it moved: its slot was kept up to date
        #expect(routed(.state) == [ObjectIdentifier(watchers[2])])
        hub.unwatch(watchers[2])
        hub.unwatch(watchers[0])
        #expect(hub.watcherCount == 0)
        #expect(hub.publish(state: state(2)) == nil && hub.publish(overlays: overlays(2), texts: nil) == nil)
        #expect(hub.routeCount == 0)
    }

    @Test("two publishes handed over out of order: the later one stays")
    func outOfOrder() {
        var hub = HubState<Watcher, Watcher>()
        let watcher = Watcher()
        _ = hub.watch(watcher, topics: [.overlays], replay: false)
        let first = hub.publish(overlays: overlays(1), texts: nil)!
        let second = hub.publish(overlays: overlays(2), texts: nil)!
        watcher.receive(second)
        watcher.receive(first)
        #expect(watcher.taken() == ["overlays 2"])
    }
}

extension HubState.Delivery: Equatable {
    public static func == (a: Self, b: Self) -> Bool { a.version == b.version && a.topic == b.topic }
}
