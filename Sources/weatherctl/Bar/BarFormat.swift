import WeatherRPC

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a bar shows at one moment.
enum BarContent: Sendable, Equatable {
    /// The daemon cannot be reached; `reason` says why (in the tooltip).
    case unavailable(reason: String)
    /// Connected, and there is no place to show (no location, search or watched city yet).
    case nothing
    case weather(BarWeather)
}

/// `--format`: which bar the lines are for.
enum BarFormat: String, Sendable, CaseIterable {
    /// One JSON object per line for waybar's `custom` module (`"return-type": "json"`).
    case waybar
    /// The i3bar protocol (i3bar, swaybar): a header, then an endless array of block lists.
    case i3bar
    /// One plain line per change (polybar's `tail = true`, tmux, scripts).
    case text
}

/// Turns what a bar shows into the lines of its format.
struct BarRenderer: Sendable {
    var format: BarFormat
    var template: BarTemplate
    var timeZone: WallClock.Zone = .local

    /// The i3bar block's `name`.
    static let blockName = "weatherd"
    /// The text shown while the daemon is unreachable.
    static let unavailableText = "weatherd unavailable"

    /// The i3bar header and the opening of its endless array; nothing for the other formats.
    var preamble: [String] {
        format == .i3bar ? [#"{"version":1,"click_events":true}"#, "["] : []
    }

    /// The text of `weather` by the template; for waybar its values are escaped for Pango markup
    /// (waybar reads `text` as markup, so a place named "A & B" must not break it).
    func text(_ weather: BarWeather, at now: Date) -> String {
        template.render(escape: format == .waybar ? Self.markupEscaped : { $0 }) { weather.value(of: $0, at: now) }
    }

    /// The line (without the i3bar array's separator) for `content`.
    func line(_ content: BarContent, at now: Date) -> String {
        switch format {
        case .text:
            switch content {
            case .unavailable: return Self.unavailableText
            case .nothing: return ""
            case .weather(let weather): return text(weather, at: now)
            }
        case .waybar: return waybarObject(content, at: now).serialized
        case .i3bar: return JSONValue.array([i3barBlock(content, at: now)]).serialized
        }
    }

    /// `class`: the condition, then `stale`, `unavailable` and `alert-<severity>` where they apply.
    static func classes(_ content: BarContent, at now: Date) -> [String] {
        switch content {
        case .unavailable: return ["unavailable"]
        case .nothing: return []
        case .weather(let weather):
            var classes = [weather.conditionClass(at: now)].compactMap { $0 }
            if weather.isStale { classes.append("stale") }
            if let severity = weather.alertSeverity { classes.append("alert-\(severity)") }
            return classes
        }
    }

    func waybarObject(_ content: BarContent, at now: Date) -> JSONValue {
        var object: JSONObject = [:]
        switch content {
        case .unavailable(let reason):
            object["text"] = .string(Self.unavailableText)
            object["tooltip"] = .string(Self.markupEscaped("weatherd cannot be reached: \(reason)\nReconnecting…"))
            object["class"] = .array(Self.classes(content, at: now).map(JSONValue.string))
            object["alt"] = "unavailable"
        case .nothing:
            object["text"] = ""
            object["tooltip"] = "weatherd has no place to show yet"
            object["class"] = .array([])
            object["alt"] = "none"
        case .weather(let weather):
            object["text"] = .string(text(weather, at: now))
            object["tooltip"] = .string(
                weather.tooltipLines(at: now, timeZone: timeZone).map(Self.markupEscaped).joined(separator: "\n"))
            object["class"] = .array(Self.classes(content, at: now).map(JSONValue.string))
            object["alt"] = .string(weather.current("icon", at: now)?.stringValue ?? "none")
            if let percent = weather.precipitationPercent(at: now) { object["percentage"] = .integer(Int64(percent)) }
        }
        return .object(object)
    }

    /// The colour of a block with an alert, by the most severe one's severity (nil: the bar's own).
    static func color(severity: String) -> String? {
        switch severity {
        case "extreme": "#FF3B30"
        case "severe": "#FF9500"
        case "moderate": "#FFCC00"
        case "minor": "#5AC8FA"
        default: nil
        }
    }

    func i3barBlock(_ content: BarContent, at now: Date) -> JSONValue {
        var block: JSONObject = ["name": .string(Self.blockName)]
        switch content {
        case .unavailable:
            block["instance"] = "unavailable"
            block["full_text"] = .string(Self.unavailableText)
            block["short_text"] = "weatherd ✕"
            block["color"] = "#888888"
        case .nothing:
            block["instance"] = "none"
            block["full_text"] = ""
        case .weather(let weather):
            block["instance"] = .string(weather.feature["id"]?.stringValue ?? "none")
            block["full_text"] = .string(text(weather, at: now))
            block["short_text"] = .string(BarTemplate.standard.render { weather.value(of: $0, at: now) })
            if let color = weather.alertSeverity.flatMap(Self.color(severity:)) {
                block["color"] = .string(color)
            } else if weather.isStale {
                block["color"] = "#AAAAAA"
            }
        }
        return .object(block)
    }

    /// `text` with `&`, `<` and `>` written as Pango markup's entities.
    static func markupEscaped(_ text: String) -> String {
        guard text.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// What is written to the bar: the preamble once, then a line only when it differs from the last
/// one written (the i3bar array's elements after the first begin with a comma).
struct BarOutput: Sendable {
    let renderer: BarRenderer
    private var last: String?

    init(renderer: BarRenderer) {
        self.renderer = renderer
    }

    /// The lines to write for `content`: none when the bar already shows it.
    mutating func lines(for content: BarContent, at now: Date) -> [String] {
        let line = renderer.line(content, at: now)
        if line == last { return [] }
        let first = last == nil
        last = line
        if first { return renderer.preamble + [line] }
        return [renderer.format == .i3bar ? "," + line : line]
    }
}
