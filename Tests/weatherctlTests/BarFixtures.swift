import Foundation
import WeatherCore

@testable import weatherctl

/// Features and messages as the daemon sends them, for the bar's tests.
enum BarFixtures {
    /// 2026-11-26 10:00 UTC: the time the tests' forecasts begin at.
    static let now = Date(timeIntervalSince1970: 1_795_687_200)

    /// A Feature in the protocol's shape: London's fixture values unless changed.
    static func feature(
        id: String = "owm:2643743", name: String = "London", country: String = "GB", lat: Double = 51.5085, lon: Double = -0.1257,
        source: String = "city", temperature: Double? = 8.94, condition: String = "Clouds", description: String = "overcast clouds",
        icon: String = "04n", symbol: String = "☁", units: String = "metric", stale: Bool = false,
        fetchedAt: String = "2026-11-26T09:55:00Z",
        provider: String = "openweathermap", extra: JSONObject = [:]
    ) -> JSONValue {
        var properties: JSONObject = [
            "name": .string(name), "state": .null, "country": .string(country), "source": .string(source),
            "provider": .string(provider), "alternatives": .integer(0), "temperature": .number(temperature), "feels_like": .double(7.91),
            "humidity": .integer(90), "pressure": .integer(997), "wind_speed": .double(2.06), "wind_deg": .integer(250),
            "clouds": .integer(100),
            "condition": .string(condition), "description": .string(description), "icon": .string(icon), "symbol": .string(symbol),
            "observed_at": "2026-11-26T09:35:55Z", "units": .string(units), "fetched_at": .string(fetchedAt), "stale": .bool(stale),
        ]
        for (key, value) in extra.members { properties[key] = value }
        return .object([
            "type": "Feature", "id": .string(id),
            "geometry": .object(["type": "Point", "coordinates": .array([.double(lon), .double(lat)])]),
            "properties": .object(properties),
        ])
    }

    static let london = feature()
    static let paris = feature(
        id: "owm:2988507", name: "Paris", country: "FR", lat: 48.8534, lon: 2.3488, temperature: 12.9, condition: "Clear",
        description: "clear sky", icon: "01d", symbol: "☀")
    static let seoul = feature(
        id: "owm:1835848", name: "Seoul", country: "KR", lat: 37.5683, lon: 126.9778, temperature: -0.4, condition: "Snow",
        description: "light snow", icon: "13n", symbol: "❄")

    /// A `forecast` answer: the place without current weather, and hourly steps from `now`.
    static func forecast(
        id: String = "pt:51.5085,-0.1257", name: String? = nil, lat: Double = 51.5085, lon: Double = -0.1257,
        pops: [Double] = [0.2, 0.4, 0.6],
        provider: String = "open-meteo"
    ) -> JSONValue {
        let steps: [JSONValue] = pops.enumerated().map { index, pop in
            .object([
                "at": .string(Timestamp.iso8601(now.addingTimeInterval(Double(index) * 3600))), "temperature": .double(10 + Double(index)),
                "feels_like": .integer(9), "humidity": .integer(80), "wind_speed": .double(3.4), "wind_deg": .integer(270),
                "pop": .double(pop),
                "condition": "Rain", "description": "light rain", "icon": "10d", "symbol": "🌧",
            ])
        }
        return .object([
            "type": "Feature", "id": .string(id),
            "geometry": .object(["type": "Point", "coordinates": .array([.double(lon), .double(lat)])]),
            "properties": .object([
                "name": .string(name), "country": .null, "source": "text", "provider": .string(provider), "temperature": .null,
                "condition": .null, "description": .null, "icon": .null, "symbol": .null, "humidity": .null, "wind_speed": .null,
                "units": "metric", "stale": .bool(false), "forecast": .array(steps), "forecast_step": .integer(3600),
            ]),
        ])
    }

    static func overlays(_ features: [JSONValue], seq: Int = 1) -> JSONValue {
        .object([
            "jsonrpc": "2.0", "method": "overlays",
            "params": .object(["type": "FeatureCollection", "seq": .integer(Int64(seq)), "focus": .null, "features": .array(features)]),
        ])
    }

    /// A `state` notification with `location` (nil: the member is null).
    static func state(location: (lat: Double, lon: Double)?) -> JSONValue {
        let fused: JSONValue =
            location.map {
                .object([
                    "source": "gpsd", "lat": .double($0.lat), "lon": .double($0.lon), "horizontal_error": .integer(12),
                    "at": "2026-11-26T10:00:00Z",
                ])
            }
            ?? .null
        return .object([
            "jsonrpc": "2.0", "method": "state",
            "params": .object([
                "running": .bool(false), "phase": "populated", "pending": .integer(0), "input": .null, "error": .null,
                "gps": .object(["enabled": .bool(true), "connected": .bool(true), "last_fix": .null]), "location": fused,
            ]),
        ])
    }

    static func reply(_ id: Int, _ result: JSONValue) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": .integer(Int64(id)), "result": result])
    }

    static func errorReply(_ id: Int, code: Int = -32004, message: String = "upstream unavailable") -> JSONValue {
        .object([
            "jsonrpc": "2.0", "id": .integer(Int64(id)), "error": .object(["code": .integer(Int64(code)), "message": .string(message)]),
        ])
    }

    static let alerts: JSONValue = .array([
        .object(["id": "a1", "event": "Wind Advisory", "severity": "Minor", "headline": "Wind Advisory until 6 PM"]),
        .object(["id": "a2", "event": "Winter Storm Warning", "severity": "Severe", "headline": "Heavy snow expected"]),
    ])

    static let airQuality: JSONValue = .object([
        "european_aqi": .integer(23), "us_aqi": .integer(41), "pm2_5": .double(5.1), "pm10": .double(9.8), "ozone": .integer(48),
        "nitrogen_dioxide": .integer(12),
        "at": "2026-11-26T10:00:00Z", "provider": "open-meteo",
    ])
}

extension [BarMachine.Action] {
    /// The requests sent, parsed.
    var sent: [JSONValue] {
        compactMap { action -> JSONValue? in
            guard case .send(let line) = action else { return nil }
            return try? JSONValue.parse([UInt8](line.utf8))
        }
    }

    /// What is shown last.
    var shown: BarContent? {
        compactMap { if case .show(let content) = $0 { content } else { nil } }.last
    }

    /// The id of the feature shown last (nil when not weather).
    var shownID: String? {
        guard case .weather(let weather)? = shown else { return nil }
        return weather.feature["id"]?.stringValue
    }
}
