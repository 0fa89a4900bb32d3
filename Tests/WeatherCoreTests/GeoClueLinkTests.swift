import Testing

@testable import WeatherCore

/// GeoClue's link, event by event: what is logged, what `location_sources` shows, when to try again.
@Suite("GeoClue: the link's decisions")
struct GeoClueLinkTests {
    static let absent = GeoClueRefusal(.absent, "The name org.freedesktop.GeoClue2 was not provided by any .service files")
    static let notAgent = GeoClueRefusal(.agentNotAllowed, "weatherd not allowed to act as agent")

    @Test("the first event connects; nothing is logged or shown yet")
    func begins() {
        var link = GeoClueLink(desktopID: "weatherd")
        #expect(link.begin() == .init(next: .connect))
        #expect(link.state == .connecting)
    }

    @Test("a started client is logged at notice, shown connected, and served")
    func started() {
        var link = GeoClueLink(desktopID: "weatherd")
        _ = link.begin()
        let action = link.started(accuracy: .city)
        #expect(action.log?.level == .notice)
        #expect(action.log?.message == "GeoClue: client started as weatherd, accuracy city")
        #expect(action.connected == true)
        #expect(action.next == .serve)
        #expect(link.state == .started)
    }

    @Test("a refusal is one warning that says what to do; the same refusal again is only debug, with a longer wait each time")
    func refusalLoggedOnce() {
        var link = GeoClueLink(desktopID: "weatherd")
        _ = link.begin()
        let first = link.refused(Self.notAgent)
        #expect(first.log?.level == .warning)
        #expect(first.log?.message.contains("/etc/geoclue/geoclue.conf") == true)
        #expect(first.log?.message.contains("[agent] whitelist=") == true)
        #expect(first.log?.message.contains("[weatherd] with allowed=true, system=true") == true)
        #expect(first.connected == false)
        #expect(first.next == .wait(.seconds(1)))
        #expect(link.state == .waiting)

        #expect(link.retry() == .init(next: .connect))
        let second = link.refused(Self.notAgent)
        #expect(second.log?.level == .debug)
        #expect(second.next == .wait(.seconds(2)))
        _ = link.retry()
        #expect(link.refused(Self.notAgent).next == .wait(.seconds(4)))
    }

    @Test("another reason is logged again")
    func newReasonLogged() {
        var link = GeoClueLink(desktopID: "weatherd")
        _ = link.begin()
        _ = link.refused(Self.absent)
        _ = link.retry()
        let action = link.refused(Self.notAgent)
        #expect(action.log?.level == .warning)
        #expect(action.log?.message.hasPrefix("GeoClue does not accept weatherd as its agent") == true)
    }

    @Test("the backoff stops growing at 30 s")
    func backoffMaximum() {
        var link = GeoClueLink(desktopID: "weatherd")
        _ = link.begin()
        var waits: [GeoClueLink.Next] = []
        for _ in 0..<8 {
            waits.append(link.refused(Self.absent).next)
            _ = link.retry()
        }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30, 30].map { .wait(.seconds($0)) })
    }

    @Test("a started client resets the backoff and what was logged: the same refusal after it is a warning again")
    func startResets() {
        var link = GeoClueLink(desktopID: "weatherd")
        _ = link.begin()
        _ = link.refused(Self.absent)
        _ = link.retry()
        _ = link.refused(Self.absent)
        _ = link.retry()
        _ = link.started(accuracy: .exact)
        let lost = link.lost("GeoClue left the system bus")
        #expect(lost.log?.level == .warning)
        #expect(lost.log?.message == "GeoClue: the client ended (GeoClue left the system bus); reconnecting")
        #expect(lost.connected == false)
        #expect(lost.next == .wait(.seconds(1)))
        _ = link.retry()
        let absent = link.refused(Self.absent)
        #expect(absent.log?.level == .warning)
        #expect(absent.next == .wait(.seconds(2)))
    }

    @Test("a client lost before it started counts as a refusal")
    func lostBeforeStart() {
        var link = GeoClueLink(desktopID: "weatherd")
        _ = link.begin()
        let action = link.lost("the bus thread ended")
        #expect(action.log?.level == .warning)
        #expect(action.log?.message == "GeoClue failed (the bus thread ended); no GeoClue locations until it answers")
        #expect(action.connected == false)
    }
}

@Suite("GeoClue: what a D-Bus error means")
struct GeoClueRefusalTests {
    @Test("no bus at all")
    func noBus() {
        #expect(GeoClueRefusal.classify(step: .connect, errorName: nil, message: "No such file or directory").reason == .noBus)
        #expect(GeoClueRefusal.classify(step: .start, errorName: nil, message: "Connection reset by peer").reason == .noBus)
    }

    @Test(
        "GeoClue missing from the bus",
        arguments: [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.Spawn.ExecFailed",
        ])
    func absent(_ name: String) {
        let refusal = GeoClueRefusal.classify(step: .addAgent, errorName: name, message: "m")
        #expect(refusal.reason == .absent)
        #expect(refusal.logLine(desktopID: "weatherd").contains("install GeoClue (Debian: geoclue-2.0)"))
    }

    @Test("access denied: to the agent, then to the client; the line names the desktop id's section")
    func accessDenied() {
        let agent = GeoClueRefusal.classify(
            step: .addAgent, errorName: "org.freedesktop.DBus.Error.AccessDenied", message: "wd not allowed to act as agent")
        #expect(agent == GeoClueRefusal(.agentNotAllowed, "wd not allowed to act as agent"))
        let app = GeoClueRefusal.classify(
            step: .start, errorName: "org.freedesktop.DBus.Error.AccessDenied", message: "'wd' disallowed by configuration")
        #expect(app.reason == .appNotAllowed)
        #expect(
            app.logLine(desktopID: "wd")
                == "GeoClue refuses to locate weatherd ('wd' disallowed by configuration): add to /etc/geoclue/geoclue.conf "
                + "[agent] whitelist=…;wd (its existing entries, then wd) and a section [wd] with allowed=true, system=true, "
                + "users= (empty: every user), then restart geoclue")
    }

    @Test("anything else is a failure with GeoClue's words")
    func other() {
        let refusal = GeoClueRefusal.classify(
            step: .configure, errorName: "org.freedesktop.DBus.Error.InvalidArgs", message: "bad level")
        #expect(refusal == GeoClueRefusal(.failed, "bad level"))
    }
}
