import Foundation
import WeatherCore

/// `--shift-times` (the offline demo's): recorded answers served with their times moved to the
/// present, so sample data looks current, and recorded forecasts completed to the whole range asked.
/// Without it every recorded time is served as recorded (the tests compare them).
enum TimeShift {
    /// A recorded current-weather body (`/data/2.5/weather`) with `dt` moved to `now` (to the minute),
    /// and `sys.sunrise` and `sys.sunset` moved by the same number of whole days, so they keep their
    /// time of day.
    static func weather(_ body: JSONObject, now: Date) -> JSONObject {
        guard let dt = body["dt"]?.intValue else { return body }
        let present = Int(now.timeIntervalSince1970) / 60 * 60
        var moved = body
        moved["dt"] = .integer(Int64(present))
        if var sys = body["sys"]?.objectValue {
            let days = wholeDays(present - dt)
            for key in ["sunrise", "sunset"] {
                if let time = sys[key]?.intValue { sys[key] = .integer(Int64(time + days)) }
            }
            moved["sys"] = .object(sys)
        }
        return moved
    }

    /// A recorded 5 day / 3 hour forecast with its steps moved by whole 3-hour steps so the first is
    /// the next 3-hour boundary after `now` (as a synthesized forecast starts), in the slots of the
    /// synthesized forecast of `weather` (the city's current weather), whose steps fill the slots no
    /// recorded step lands in: `SynthesizedForecast.steps` steps, 3 hours apart. `city.sunrise` and
    /// `city.sunset` move by whole days.
    static func forecast(_ recorded: RecordedForecast, weather: RecordedWeather, now: Date) -> RecordedForecast {
        let synthesized = SynthesizedForecast.forecast(from: weather, now: now).body(in: recorded.units)
        let made = synthesized["list"]?.arrayValue ?? []
        guard let list = recorded.body["list"]?.arrayValue, let first = list.first?["dt"]?.intValue,
            let start = made.first?["dt"]?.intValue
        else { return recorded }
        let step = SynthesizedForecast.stepSeconds
        let shift = Int((Double(start - first) / Double(step)).rounded(.up)) * step
        var moved: [Int: JSONValue] = [:]
        for entry in list {
            guard var object = entry.objectValue, let dt = object["dt"]?.intValue else { continue }
            object["dt"] = .integer(Int64(dt + shift))
            if object["dt_txt"] != nil { object["dt_txt"] = .string(SynthesizedForecast.dateText(dt + shift)) }
            moved[dt + shift] = .object(object)
        }
        let steps = made.map { slot in slot["dt"]?.intValue.flatMap { moved[$0] } ?? slot }
        var body = recorded.body
        body["list"] = .array(steps)
        if body["cnt"] != nil { body["cnt"] = .integer(Int64(steps.count)) }
        if var city = body["city"]?.objectValue {
            let days = wholeDays(shift)
            for key in ["sunrise", "sunset"] {
                if let time = city[key]?.intValue { city[key] = .integer(Int64(time + days)) }
            }
            body["city"] = .object(city)
        }
        return RecordedForecast(file: recorded.file, units: recorded.units, body: body)
    }

    /// `seconds` rounded to whole days (86400 s).
    static func wholeDays(_ seconds: Int) -> Int {
        Int((Double(seconds) / 86400).rounded()) * 86400
    }
}
