import Foundation
import Testing

@testable import WeatherCore
@testable import WeatherSessions

@Suite("locate and location.report: their params")
struct LocationParamsTests {
    private func report(_ object: JSONObject) throws(WeatherError) -> LocationReportParams {
        try LocationReportParams(Params(object, allowed: LocationReportParams.names))
    }

    private func locate(_ object: JSONObject) throws(WeatherError) -> LocateParams {
        try LocateParams(Params(object, allowed: LocateParams.names))
    }

    private func invalid(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as WeatherError {
            return error.code == .invalidParams ? error.message : "\(error.code.name): \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test("a report: lat, lon, horizontal_error; at defaults to now (nil) and source to client")
    func minimalReport() throws {
        let params = try report(["lat": .double(51.5), "lon": .double(-0.12), "horizontal_error": .double(35)])
        #expect(params.coordinate == Coordinate(lat: 51.5, lon: -0.12))
        #expect(params.horizontalError == 35)
        #expect(params.at == nil)
        #expect(params.source == .client)
    }

    @Test("at is RFC 3339, with or without fractional seconds or an offset; source browser is kept")
    func fullReport() throws {
        let base: JSONObject = ["lat": .double(1), "lon": .double(2), "horizontal_error": .double(1), "source": "browser"]
        for (text, seconds) in [
            ("2026-11-26T10:00:00Z", 1_795_687_200.0), ("2026-11-26T10:00:00.250Z", 1_795_687_200.25),
            ("2026-11-26T11:00:00+01:00", 1_795_687_200.0),
        ] {
            var object = base
            object["at"] = .string(text)
            let params = try report(object)
            #expect(params.at.map { abs($0.timeIntervalSince1970 - seconds) < 0.001 } == true, "\(text)")
            #expect(params.source == .browser)
        }
    }

    @Test(
        "bad coordinates, a bad error, a bad time or source are invalid params",
        arguments: [
            ["lon": .double(0), "horizontal_error": .double(1)],
            ["lat": .double(90.5), "lon": .double(0), "horizontal_error": .double(1)],
            ["lat": .double(0), "lon": .double(-180.5), "horizontal_error": .double(1)],
            ["lat": "north", "lon": .double(0), "horizontal_error": .double(1)],
            ["lat": .double(0), "lon": .double(0)],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": .double(0)],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": .double(-3)],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": "10"],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": .double(1), "at": "yesterday"],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": .double(1), "at": .double(1_795_687_200)],
            ["lat": .double(0), "lon": .double(0), "horizontal_error": .double(1), "source": "gpsd"],
        ] as [JSONObject])
    func badReport(object: JSONObject) {
        let message = invalid { _ = try report(object) }
        #expect(message?.hasPrefix("invalid params: ") == true, "\(object): \(message ?? "accepted")")
    }

    @Test("locate: source is one of the four kinds; an unknown one is invalid params")
    func locateSource() throws {
        #expect(try locate(["source": "owntracks"]).source == .owntracks)
        #expect(try locate(["source": "client"]).source == .client)
        #expect(try locate([:]).source == nil)
        let message = invalid { _ = try locate(["source": "browser"]) }
        #expect(message == #"invalid params: "source" must be one of "gpsd", "owntracks", "geoclue", "client""#)
    }

    @Test("locate: max_age is seconds, 0 or more")
    func locateMaxAge() throws {
        #expect(try locate(["max_age": .double(90)]).maxAge == .seconds(90))
        #expect(try locate(["max_age": .integer(0)]).maxAge == .zero)
        #expect(invalid { _ = try locate(["max_age": .double(-1)]) } != nil)
    }
}
