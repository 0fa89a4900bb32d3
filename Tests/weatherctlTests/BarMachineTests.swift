import Foundation
import Testing
import WeatherCore

@testable import weatherctl

@Suite("bar: the choice of place, clicks and reconnecting, event by event")
struct BarMachineTests {
    let now = BarFixtures.now

    /// A machine connected and given `features`; returns it and the actions of the overlays.
    func connected(
        _ options: BarMachine.Options = .init(), features: [JSONValue] = [BarFixtures.london, BarFixtures.paris]
    ) -> (BarMachine, [BarMachine.Action]) {
        var machine = BarMachine(options: options)
        _ = machine.connected(now: now)
        _ = machine.received(BarFixtures.reply(1, .object(["topics": .array(["overlays", "state"])])), now: now)
        let actions = machine.received(BarFixtures.overlays(features), now: now)
        return (machine, actions)
    }

    @Test("connecting watches the overlays and the state, with replay")
    func watches() {
        var machine = BarMachine()
        let actions = machine.connected(now: now)
        #expect(actions.sent.count == 1)
        #expect(actions.sent.first?["method"] == "watch")
        #expect(actions.sent.first?["params"] == .object(["replay": .bool(true), "topics": .array(["overlays", "state"])]))
        #expect(machine.link == .connected)
    }

    @Test("without location or search the first watched city is shown, and its forecast asked at its point")
    func firstWatchedCity() {
        let (_, actions) = connected()
        #expect(actions.shownID == "owm:2643743")
        let ask = actions.sent.first
        #expect(ask?["method"] == "forecast")
        #expect(ask?["params"] == .object(["lat": .double(51.5085), "lon": .double(-0.1257), "hours": .integer(12)]))
    }

    @Test("the forecast's answer joins the feature; a refresh of the city asks it again, the same feature does not")
    func forecastOfTheShownFeature() {
        var (machine, actions) = connected()
        let id = actions.sent.first?["id"]?.intValue ?? 0
        let answered = machine.received(BarFixtures.reply(id, BarFixtures.forecast()), now: now)
        guard case .weather(let weather)? = answered.shown else {
            Issue.record("no weather: \(answered)")
            return
        }
        #expect(weather.forecast == BarFixtures.forecast())
        #expect(answered.sent.isEmpty)
        #expect(machine.received(BarFixtures.overlays([BarFixtures.london, BarFixtures.paris], seq: 2), now: now).sent.isEmpty)
        let refreshed = BarFixtures.feature(temperature: 9.5, fetchedAt: "2026-11-26T10:05:00Z")
        let again = machine.received(BarFixtures.overlays([refreshed, BarFixtures.paris], seq: 3), now: now)
        #expect(again.sent.first?["method"] == "forecast")
        guard case .weather(let kept)? = again.shown else {
            Issue.record("no weather")
            return
        }
        #expect(kept.forecast == BarFixtures.forecast(), "the last forecast stays while the new one is asked")
    }

    @Test("the latest text search's feature wins over the watched cities; a region search keeps it")
    func searchThenRegion() {
        var (machine, _) = connected()
        let seoul = BarFixtures.feature(
            id: "owm:1835848", name: "Seoul", country: "KR", lat: 37.5683, lon: 126.9778, source: "text", temperature: -0.4)
        #expect(
            machine.received(BarFixtures.overlays([BarFixtures.london, BarFixtures.paris, seoul], seq: 2), now: now).shownID
                == "owm:1835848")
        let grid = BarFixtures.feature(id: "pt:44.3400,10.9900", name: "Zocca", country: "IT", lat: 44.34, lon: 10.99, source: "region")
        #expect(
            machine.received(BarFixtures.overlays([BarFixtures.london, BarFixtures.paris, grid], seq: 3), now: now).shownID == "owm:1835848"
        )
        let located = BarFixtures.feature(id: "pt:-37.7848,175.3149", name: "", lat: -37.7848, lon: 175.3149, source: "location")
        #expect(machine.received(BarFixtures.overlays([BarFixtures.london, located], seq: 4), now: now).shownID == "pt:-37.7848,175.3149")
    }

    @Test("a location: asked with forecast at that point (the next place shown until the answer), again only after moving 1 km")
    func location() {
        var (machine, first) = connected()
        let cityAsk = first.sent.first?["id"]?.intValue ?? 0
        // The city's forecast is in flight: one request at a time, the location's next.
        let located = machine.received(BarFixtures.state(location: (-37.7848, 175.3149)), now: now)
        #expect(located.sent.isEmpty)
        #expect(located.shownID == "owm:2643743", "the first watched city until the location's weather is known")
        let next = machine.received(BarFixtures.reply(cityAsk, BarFixtures.forecast()), now: now)
        let pointAsk = next.sent.first
        #expect(pointAsk?["params"] == .object(["lat": .double(-37.7848), "lon": .double(175.3149), "hours": .integer(12)]))
        let answer = BarFixtures.forecast(id: "pt:-37.7848,175.3149", lat: -37.7848, lon: 175.3149)
        let shown = machine.received(BarFixtures.reply(pointAsk?["id"]?.intValue ?? 0, answer), now: now)
        #expect(shown.shownID == "pt:-37.7848,175.3149")
        guard case .weather(let weather)? = shown.shown else { return }
        #expect(weather.value(of: .temperature, at: now) == "10", "a forecast answer's current weather is its step in progress")
        // 500 m: the same point; 1.5 km: asked again, the last weather shown meanwhile.
        #expect(machine.received(BarFixtures.state(location: (-37.7848 + 0.0045, 175.3149)), now: now).sent.isEmpty)
        let moved = machine.received(BarFixtures.state(location: (-37.7848 + 0.0135, 175.3149)), now: now)
        #expect(moved.sent.first?["params"]?["lat"] == .double(-37.7848 + 0.0135))
        #expect(moved.shownID == "pt:-37.7848,175.3149")
        // The location gone: the first watched city again.
        #expect(machine.received(BarFixtures.state(location: nil), now: now).shownID == "owm:2643743")
    }

    @Test("the location's weather is asked again after refreshInterval; a failed ask shows the next place")
    func locationRefreshAndFailure() {
        var machine = BarMachine()
        _ = machine.connected(now: now)
        // The state's replay may come before the overlays': nothing is shown or asked until they come.
        #expect(machine.received(BarFixtures.state(location: (10, 20)), now: now).isEmpty)
        let first = machine.received(BarFixtures.overlays([BarFixtures.london]), now: now)
        #expect(first.shown == .weather(BarWeather(feature: BarFixtures.london)))
        #expect(first.sent.first?["params"]?["lat"]?.doubleValue == 10, "the location's weather is asked first")
        let ask = first.sent.first?["id"]?.intValue ?? 0
        let failed = machine.received(BarFixtures.errorReply(ask), now: now)
        // The point failed: London is the target now, and its forecast is asked.
        #expect(failed.shownID == "owm:2643743")
        #expect(failed.sent.first?["params"]?["lat"]?.doubleValue == 51.5085)
        _ = machine.received(BarFixtures.reply(failed.sent.first?["id"]?.intValue ?? 0, BarFixtures.forecast()), now: now)
        #expect(machine.wakeAt == now.addingTimeInterval(600))
        #expect(machine.tick(now: now.addingTimeInterval(599)).isEmpty)
        let retry = machine.tick(now: now.addingTimeInterval(600))
        #expect(retry.sent.first?["params"] == .object(["lat": .integer(10), "lon": .integer(20), "hours": .integer(12)]))
        let answer = BarFixtures.forecast(id: "pt:10.0000,20.0000", lat: 10, lon: 20)
        let later = now.addingTimeInterval(600)
        #expect(
            machine.received(BarFixtures.reply(retry.sent.first?["id"]?.intValue ?? 0, answer), now: later).shownID == "pt:10.0000,20.0000")
        // A later failure keeps the weather, marked stale.
        let again = machine.tick(now: later.addingTimeInterval(600))
        let stale = machine.received(BarFixtures.errorReply(again.sent.first?["id"]?.intValue ?? 0), now: later.addingTimeInterval(600))
        guard case .weather(let weather)? = stale.shown else {
            Issue.record("\(stale)")
            return
        }
        #expect(weather.isStale && weather.feature["id"] == "pt:10.0000,20.0000")
    }

    @Test("a state without a location member (a daemon before it): gpsd's last fix while connected")
    func gpsFallback() {
        let fix: JSONValue = .object(["lat": .double(1.5), "lon": .double(2.5), "horizontal_error": .integer(10), "mode": .integer(3)])
        #expect(
            BarMachine.location(in: .object(["gps": .object(["connected": .bool(true), "last_fix": fix])]))
                == Coordinate(lat: 1.5, lon: 2.5))
        #expect(BarMachine.location(in: .object(["gps": .object(["connected": .bool(false), "last_fix": fix])])) == nil)
        #expect(BarMachine.location(in: .object(["location": .null, "gps": .object(["connected": .bool(true), "last_fix": fix])])) == nil)
        #expect(
            BarMachine.location(in: .object(["location": .object(["lat": .integer(3), "lon": .integer(4)])])) == Coordinate(lat: 3, lon: 4))
    }

    @Test("a reply to an older ask, or to nothing, changes nothing")
    func strayReplies() {
        var (machine, actions) = connected()
        let id = actions.sent.first?["id"]?.intValue ?? 0
        #expect(machine.received(BarFixtures.reply(id + 7, BarFixtures.forecast()), now: now).isEmpty)
        #expect(machine.received(.object(["jsonrpc": "2.0", "method": "overlays.diff", "params": .object([:])]), now: now).isEmpty)
    }

    @Test("button 1 steps through the watched cities and wraps; button 3 goes back to the default")
    func clicks() {
        var (machine, _) = connected(features: [BarFixtures.london, BarFixtures.paris, BarFixtures.seoul])
        #expect(machine.clicked(BarClick(button: 1), now: now).shownID == "owm:2988507")
        #expect(machine.clicked(BarClick(button: 1), now: now).shownID == "owm:1835848")
        #expect(machine.clicked(BarClick(button: 1), now: now).shownID == "owm:2643743")
        #expect(machine.clicked(BarClick(button: 2), now: now).isEmpty)
        _ = machine.clicked(BarClick(button: 1), now: now)
        // A pinned city stays through a search, until button 3.
        let search = BarFixtures.feature(id: "owm:1", name: "Oslo", country: "NO", source: "text")
        #expect(
            machine.received(BarFixtures.overlays([BarFixtures.london, BarFixtures.paris, BarFixtures.seoul, search], seq: 2), now: now)
                .shownID == "owm:2988507")
        #expect(machine.clicked(BarClick(button: 3), now: now).shownID == "owm:1")
        #expect(machine.clicked(BarClick(button: 3), now: now).isEmpty, "nothing pinned: nothing to do")
    }

    @Test("a pinned city that is no longer watched unpins")
    func pinnedCityRemoved() {
        var (machine, _) = connected()
        #expect(machine.clicked(BarClick(button: 1), now: now).shownID == "owm:2988507")
        #expect(machine.received(BarFixtures.overlays([BarFixtures.london], seq: 2), now: now).shownID == "owm:2643743")
        #expect(machine.clickPin == nil)
    }

    @Test("--city: a watched city by its name (any case, with its country); else asked with forecast by name")
    func city() {
        for name in ["paris", "Paris, FR", "PARIS,fr"] {
            #expect(connected(.init(city: name)).1.shownID == "owm:2988507", "\(name)")
        }
        var (machine, actions) = connected(.init(city: "Oslo"))
        #expect(actions.shown == .nothing)
        #expect(actions.sent.first?["params"] == .object(["city": "Oslo", "hours": .integer(12)]))
        let oslo = BarFixtures.forecast(id: "geonames:3143244", name: "Oslo", lat: 59.91, lon: 10.75)
        #expect(machine.received(BarFixtures.reply(actions.sent.first?["id"]?.intValue ?? 0, oslo), now: now).shownID == "geonames:3143244")
        // A location does not replace a pinned place.
        #expect(machine.received(BarFixtures.state(location: (1, 2)), now: now).sent.isEmpty)
    }

    @Test("--location: only the location's weather, nothing while there is none")
    func locationOnly() {
        var (machine, actions) = connected(.init(locationOnly: true))
        #expect(actions.shown == .nothing)
        #expect(actions.sent.isEmpty)
        let ask = machine.received(BarFixtures.state(location: (10, 20)), now: now)
        #expect(ask.shown == .nothing)
        let answer = BarFixtures.forecast(id: "pt:10.0000,20.0000", lat: 10, lon: 20)
        #expect(machine.received(BarFixtures.reply(ask.sent.first?["id"]?.intValue ?? 0, answer), now: now).shownID == "pt:10.0000,20.0000")
    }

    @Test("unreachable: shown as unavailable, connecting again 0.5 s, 1 s, 2 s, 4 s, then 5 s apart; the watch reply resets it")
    func reconnecting() {
        var machine = BarMachine()
        var waits: [TimeInterval] = []
        for _ in 0..<7 {
            let actions = machine.disconnected(reason: "cannot connect", now: now)
            #expect(actions == [.show(.unavailable(reason: "cannot connect"))])
            guard case .waiting(let until) = machine.link else {
                Issue.record("not waiting")
                return
            }
            waits.append(until.timeIntervalSince(now))
            #expect(machine.wakeAt == until)
        }
        #expect(waits == [0.5, 1, 2, 4, 5, 5, 5])
        _ = machine.connected(now: now)
        _ = machine.received(BarFixtures.reply(1, .object([:])), now: now)
        _ = machine.disconnected(reason: "the daemon closed the connection", now: now)
        #expect(machine.link == .waiting(until: now.addingTimeInterval(0.5)))
    }

    @Test("after a reconnection the ids start again and the shown feature's forecast is asked again")
    func reconnectAsksAgain() {
        var (machine, actions) = connected()
        #expect(actions.sent.first?["id"]?.intValue == 2)
        _ = machine.disconnected(reason: "gone", now: now)
        #expect(machine.received(BarFixtures.overlays([BarFixtures.london]), now: now).isEmpty, "nothing while disconnected")
        #expect(machine.connected(now: now).sent.first?["id"]?.intValue == 1)
        let again = machine.received(BarFixtures.overlays([BarFixtures.london]), now: now)
        #expect(again.sent.first?["id"]?.intValue == 2)
        #expect(again.sent.first?["method"] == "forecast")
    }
}
