import Testing

@testable import WeatherCore
@testable import WeatherSessions

@Suite("RPCMethod: the method table")
struct RPCMethodTests {
    @Test("the table holds every method of the protocol, once, in the order of its reference")
    func names() {
        #expect(
            RPCMethod.all.map(\.name) == [
                "search", "places", "locate", "location.report", "region", "forecast", "alerts", "overlays", "state", "watch", "unwatch",
                "cities", "cities.add", "cities.remove", "reload", "version",
            ])
        #expect(RPCMethod.byName.count == RPCMethod.all.count)
    }

    @Test("who may call what follows from each method's kind")
    func access() {
        #expect(
            ClientAccess.changingMethods == [
                "search", "locate", "location.report", "region", "forecast", "alerts", "places", "cities.add", "cities.remove",
            ])
        #expect(ClientAccess.administrativeMethods == ["reload"])
        #expect(ClientAccess.subscriptionMethods == ["watch", "unwatch"])
        #expect(ClientAccess.readOnly.allows("state") && !ClientAccess.readOnly.allows("places"))
        #expect(!ClientAccess.broker.allows("watch") && ClientAccess.broker.allows("search"))
        #expect(!ClientAccess.web.allows("reload") && ClientAccess.full.allows("reload"))
    }

    @Test("MQTT requesters may call every method but reload, watch and unwatch")
    func brokerAccess() {
        for method in ["search", "locate", "region", "forecast", "overlays", "state", "cities", "cities.add", "cities.remove", "version"] {
            #expect(ClientAccess.broker.allows(method), "\(method)")
        }
        for method in ["reload", "watch", "unwatch"] {
            #expect(!ClientAccess.broker.allows(method), "\(method)")
        }
    }

    @Test("each method's params are the ones its reference names")
    func params() {
        let params = Dictionary(uniqueKeysWithValues: RPCMethod.all.map { ($0.name, $0.params) })
        #expect(params["search"] == ["city", "place"])
        #expect(params["places"] == ["name", "limit"])
        #expect(params["forecast"] == ["city", "lat", "lon", "hours"])
        #expect(params["watch"] == ["replay", "topics", "diff"])
        #expect(params["region"] == ["center", "span"])
        #expect(params["locate"] == ["timeout", "source", "max_age"])
        #expect(params["location.report"] == ["lat", "lon", "horizontal_error", "at", "source"])
        #expect(params["cities.add"] == ["city"] && params["cities.remove"] == ["city"])
        #expect(["overlays", "state", "unwatch", "cities", "reload", "version"].allSatisfy { params[$0] == [] })
    }
}
