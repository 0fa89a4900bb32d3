import Foundation
import Synchronization
import WeatherCore

/// The NWS API's alerts as the stand-in answers them (`--data`'s `nws/`): `GET /alerts/active?point=LAT,LON`
/// from the recorded answer of that point's cell (`nws/alerts_LAT_LON.json`), an empty collection
/// for any other point in the United States (the daemon's outline, ``USOutline``), and 404 with the
/// NWS's problem body elsewhere; `GET /zones/TYPE/ID` a square made up around the recorded point
/// whose alert names that zone (404 for other zones). With `--shift-times` an alert's times move so
/// that it takes effect now.
///
/// `/_nws` is its control for tests: `POST /_nws?fail=STATUS` makes every NWS answer that status
/// (`fail=0` clears), `POST /_nws?ends_in=SECONDS` makes every alert served end (and expire) that many
/// seconds after the request, `POST /_nws?headline=TEXT` gives every alert served that headline,
/// `POST /_nws?outside=LAT,LON` answers that point's cell as outside the NWS's area (404);
/// `DELETE /_nws` clears them all; every answer (and `GET`) is `{"requests","by_query","fail","ends_in",
/// "headline","outside"}`, `by_query` counting `point=LAT,LON` and `zone:ID`.
final class NWSEndpoint: Sendable {
    /// A recorded answer and the point it was recorded for.
    struct Recording: Sendable {
        var cell: String
        var body: JSONObject
    }

    private struct Control {
        var fail: Int?
        var endsIn: Int?
        var headline: String?
        var outside: Set<String> = []
        var requests = 0
        var byQuery: [String: Int] = [:]
    }

    private let recordings: [String: Recording]
    /// The zones the recorded alerts name, by id, with the square made up for each.
    private let zones: [String: JSONValue]
    private let control = Mutex(Control())

    init(recordings: [Recording]) {
        var byCell: [String: Recording] = [:]
        var zones: [String: JSONValue] = [:]
        for recording in recordings {
            byCell[recording.cell] = recording
            let parts = recording.cell.split(separator: ",").compactMap { Double($0) }
            guard parts.count == 2 else { continue }
            for feature in recording.body["features"]?.arrayValue ?? [] {
                let names = feature["properties"]?["affectedZones"]?.arrayValue?.compactMap(\.stringValue) ?? []
                for (index, url) in names.enumerated() {
                    let id = String(url.split(separator: "/").last ?? "")
                    guard zones[id] == nil else { continue }
                    // Squares of 0.4° side in rows of four, the recorded point in the first.
                    let lat = parts[0] - 0.2 + Double(index / 4) * 0.4
                    let lon = parts[1] - 0.2 + Double(index % 4) * 0.4
                    zones[id] = Self.zone(id: id, lat: lat, lon: lon)
                }
            }
        }
        self.recordings = byCell
        self.zones = zones
    }

    /// The recordings of `directory/nws/`: files `alerts_LAT_LON.json`.
    convenience init(directory: String) throws {
        let nws = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent("nws")
        var recordings: [Recording] = []
        let files = (try? FileManager.default.contentsOfDirectory(atPath: nws.path)) ?? []
        for file in files.sorted() where file.hasPrefix("alerts_") && file.hasSuffix(".json") {
            let point = file.dropFirst("alerts_".count).dropLast(".json".count).split(separator: "_")
            guard point.count == 2, let lat = Double(point[0]), let lon = Double(point[1]) else {
                throw CatalogError(file: "nws/" + file, reason: "not named alerts_LAT_LON.json")
            }
            let text = try String(contentsOf: nws.appendingPathComponent(file), encoding: .utf8)
            guard let body = (try? JSONValue.parse(text.utf8))?.objectValue, body["features"]?.arrayValue != nil else {
                throw CatalogError(file: "nws/" + file, reason: "not an NWS alert collection")
            }
            recordings.append(Recording(cell: AlertCell(Coordinate(lat: lat, lon: lon)).description, body: body))
        }
        self.init(recordings: recordings)
    }

    /// The answer to `/alerts/active`, `/zones/…` or `/_nws`; nil for another path.
    func respond(method: String, target: RequestTarget, now: Date, shiftTimes: Bool) -> ReplayResponse? {
        if target.path == "/_nws" { return controlAnswer(method: method, target: target) }
        let isAlerts = target.path == "/alerts/active" || target.path == "/alerts/active/"
        guard isAlerts || target.path.hasPrefix("/zones/") else { return nil }
        guard method == "GET" || method == "HEAD" else { return Self.problem(405, "Method Not Allowed") }
        let fail = control.withLock { $0.fail }
        if let fail {
            count(isAlerts ? "point=\(target["point"] ?? "")" : "zone:\(target.path.split(separator: "/").last ?? "")")
            return fail == 429 ? Self.problem(429, "Too Many Requests") : Self.problem(fail, reasonPhrase(fail))
        }
        return isAlerts ? alerts(target, now: now, shiftTimes: shiftTimes) : zone(target)
    }

    private func alerts(_ target: RequestTarget, now: Date, shiftTimes: Bool) -> ReplayResponse {
        let parts = (target["point"] ?? "").split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1], Coordinate(lat: lat, lon: lon).isValid else {
            count("point=\(target["point"] ?? "")")
            return Self.problem(400, "Bad Request", detail: "Parameter \"point\" is invalid")
        }
        let cell = AlertCell(Coordinate(lat: lat, lon: lon))
        count("point=\(cell)")
        let settings = control.withLock { $0 }
        guard USOutline.contains(cell.coordinate), !settings.outside.contains(cell.description) else {
            return Self.problem(404, "Not Found", detail: "Unable to provide data for requested point \(cell)")
        }
        guard let recording = recordings[cell.description] else {
            return Self.json(
                .object([
                    "type": "FeatureCollection", "features": .array([]),
                    "title": .string("Current watches, warnings, and advisories for \(cell)"),
                    "updated": .string(Timestamp.iso8601(now)),
                ]))
        }
        var body = recording.body
        if shiftTimes || settings.endsIn != nil || settings.headline != nil {
            body["features"] = .array(
                (body["features"]?.arrayValue ?? []).map {
                    Self.moved($0, now: now, endsIn: settings.endsIn, shift: shiftTimes, headline: settings.headline)
                })
            body["updated"] = .string(Timestamp.iso8601(now))
        }
        return Self.json(.object(body))
    }

    private func zone(_ target: RequestTarget) -> ReplayResponse {
        let id = String(target.path.split(separator: "/").last ?? "")
        count("zone:\(id)")
        guard let zone = zones[id] else { return Self.problem(404, "Not Found", detail: "Zone \(id) does not exist") }
        return Self.json(zone)
    }

    private func count(_ key: String) {
        control.withLock {
            $0.requests += 1
            $0.byQuery[key, default: 0] += 1
        }
    }

    private func controlAnswer(method: String, target: RequestTarget) -> ReplayResponse {
        switch method {
        case "GET", "HEAD": break
        case "POST", "PUT":
            if let text = target["fail"] {
                guard let status = Int(text), status == 0 || (400...599).contains(status) else {
                    return .json(400, #"{"error":"fail= takes an HTTP status from 400 to 599, or 0 to clear"}"#)
                }
                control.withLock { $0.fail = status == 0 ? nil : status }
            }
            if let text = target["ends_in"] {
                guard let seconds = Int(text) else { return .json(400, #"{"error":"ends_in= takes whole seconds"}"#) }
                control.withLock { $0.endsIn = seconds }
            }
            if let headline = target["headline"] { control.withLock { $0.headline = headline } }
            if let text = target["outside"] {
                let parts = text.split(separator: ",").compactMap { Double($0) }
                guard parts.count == 2 else { return .json(400, #"{"error":"outside= takes LAT,LON"}"#) }
                let cell = AlertCell(Coordinate(lat: parts[0], lon: parts[1])).description
                control.withLock { _ = $0.outside.insert(cell) }
            }
        case "DELETE":
            control.withLock {
                $0.fail = nil
                $0.endsIn = nil
                $0.headline = nil
                $0.outside = []
            }
        default: return .methodNotAllowed
        }
        let json: JSONValue = control.withLock { control in
            var byQuery = JSONObject()
            for (key, count) in control.byQuery.sorted(by: { $0.key < $1.key }) { byQuery[key] = .integer(Int64(count)) }
            return .object([
                "requests": .integer(Int64(control.requests)), "by_query": .object(byQuery),
                "fail": control.fail.map { .integer(Int64($0)) } ?? .null,
                "ends_in": control.endsIn.map { .integer(Int64($0)) } ?? .null,
                "headline": .string(control.headline), "outside": .array(control.outside.sorted().map(JSONValue.string)),
            ])
        }
        return .json(200, json.serialized)
    }

    /// An alert with its times moved: with `shift`, so that it took effect at `now` (its durations
    /// kept); with `endsIn`, ending and expiring that many seconds after `now`; with `headline`, that one.
    static func moved(_ feature: JSONValue, now: Date, endsIn: Int?, shift: Bool, headline: String? = nil) -> JSONValue {
        guard var object = feature.objectValue, var properties = object["properties"]?.objectValue else { return feature }
        let keys = ["sent", "effective", "onset", "expires", "ends"]
        if shift, let start = (properties["effective"] ?? properties["sent"])?.stringValue.flatMap(Timestamp.parseRFC3339) {
            let delta = now.timeIntervalSince(start)
            for key in keys {
                if let time = properties[key]?.stringValue.flatMap(Timestamp.parseRFC3339) {
                    properties[key] = .string(Timestamp.iso8601(time.addingTimeInterval(delta)))
                }
            }
        }
        if let endsIn {
            let end = JSONValue.string(Timestamp.iso8601(now.addingTimeInterval(TimeInterval(endsIn))))
            properties["ends"] = end
            properties["expires"] = end
        }
        if let headline { properties["headline"] = .string(headline) }
        object["properties"] = .object(properties)
        return .object(object)
    }

    /// A zone Feature with a square of 0.4° from (`lat`, `lon`).
    private static func zone(id: String, lat: Double, lon: Double) -> JSONValue {
        func position(_ lat: Double, _ lon: Double) -> JSONValue {
            .array([.double((lon * 100).rounded() / 100), .double((lat * 100).rounded() / 100)])
        }
        let ring: [JSONValue] = [
            position(lat, lon), position(lat, lon + 0.4), position(lat + 0.4, lon + 0.4), position(lat + 0.4, lon), position(lat, lon),
        ]
        return .object([
            "id": .string("https://api.weather.gov/zones/forecast/\(id)"), "type": "Feature",
            "geometry": .object(["type": "Polygon", "coordinates": .array([.array(ring)])]),
            "properties": .object(["id": .string(id), "type": "public", "name": .string("Zone \(id) (made up by owm-replay)")]),
        ])
    }

    private static func json(_ body: JSONValue) -> ReplayResponse {
        ReplayResponse(status: 200, contentType: "application/geo+json", body: body.serialized)
    }

    /// The NWS's error body (`application/problem+json`).
    static func problem(_ status: Int, _ title: String, detail: String? = nil) -> ReplayResponse {
        let body: JSONValue = .object([
            "correlationId": "owm-replay", "title": .string(title),
            "type": .string("https://api.weather.gov/problems/" + title.replacingOccurrences(of: " ", with: "")),
            "status": .integer(Int64(status)), "detail": .string(detail ?? title),
            "instance": "https://api.weather.gov/requests/owm-replay",
        ])
        return ReplayResponse(status: status, contentType: "application/problem+json", body: body.serialized)
    }
}
