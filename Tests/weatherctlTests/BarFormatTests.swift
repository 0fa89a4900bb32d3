import Foundation
import Testing
import WeatherCore

@testable import weatherctl

@Suite("bar: template, formats and output")
struct BarFormatTests {
    let utc = WallClock.Zone.utc
    let now = BarFixtures.now

    func renderer(_ format: BarFormat, _ template: String = BarTemplate.defaultText) throws -> BarRenderer {
        BarRenderer(format: format, template: try BarTemplate(template), timeZone: utc)
    }

    var londonWithForecast: BarWeather { BarWeather(feature: BarFixtures.london, forecast: BarFixtures.forecast()) }

    @Test("the default template is the symbol and the whole temperature with its unit")
    func defaultTemplate() throws {
        #expect(try renderer(.text).line(.weather(londonWithForecast), at: now) == "☁ 9°C")
        let seoul = BarWeather(feature: BarFixtures.seoul)
        #expect(try renderer(.text).line(.weather(seoul), at: now) == "❄ 0°C", "-0.4 rounds to 0, never -0")
        let kelvin = BarWeather(feature: BarFixtures.feature(temperature: 298.48, units: "standard"))
        #expect(try renderer(.text, "{temperature} {unit}").line(.weather(kelvin), at: now) == "298 K")
    }

    @Test("every placeholder of the reference")
    func everyPlaceholder() throws {
        let feature = BarFixtures.feature(extra: ["air_quality": BarFixtures.airQuality, "alerts": BarFixtures.alerts])
        let text = try renderer(.text, "{symbol}|{temperature}|{unit}|{name}|{description}|{humidity}|{wind}|{aqi}|{alerts}")
            .line(.weather(BarWeather(feature: feature)), at: now)
        #expect(text == "☁|9|°C|London|overcast clouds|90%|2.1 m/s|23|Winter Storm Warning")
    }

    @Test("{aqi} is the index of the scale the feature names, the European one otherwise")
    func aqiScale() throws {
        guard case .object(var quality) = BarFixtures.airQuality else { return }
        quality["scale"] = "us"
        let us = BarWeather(feature: BarFixtures.feature(extra: ["air_quality": .object(quality)]))
        #expect(try renderer(.text, "{aqi}").line(.weather(us), at: now) == "41")
        let none = BarWeather(feature: BarFixtures.feature(extra: ["air_quality": .null]))
        #expect(try renderer(.text, "AQI {aqi}").line(.weather(none), at: now) == "AQI")
    }

    @Test("an unknown placeholder or an open brace is refused, naming it")
    func unknownPlaceholder() throws {
        #expect(throws: BarTemplate.ParseError.self) { try BarTemplate("{symbol} {temp}") }
        do {
            _ = try BarTemplate("{temp}")
        } catch {
            #expect(error.description.contains("unknown placeholder {temp}"))
        }
        #expect(throws: BarTemplate.ParseError.self) { try BarTemplate("{symbol") }
        #expect(try BarTemplate("no placeholders").pieces == [.literal("no placeholders")])
    }

    @Test("a value that is not known leaves no double space and no trailing one")
    func emptyValues() throws {
        let feature = BarFixtures.feature(extra: ["alerts": .array([])])
        #expect(
            try renderer(.text, "{symbol} {alerts} {temperature}{unit} {aqi}").line(.weather(BarWeather(feature: feature)), at: now)
                == "☁ 9°C")
    }

    @Test("waybar: text, tooltip with the place, details, next hours and credit; class, alt, percentage")
    func waybar() throws {
        let line = try renderer(.waybar).line(.weather(londonWithForecast), at: now)
        let object = try JSONValue.parse(Array(line.utf8))
        #expect(object["text"] == "☁ 9°C")
        #expect(object["class"] == .array(["clouds"]))
        #expect(object["alt"] == "04n")
        #expect(object["percentage"] == .integer(20))
        #expect(
            object["tooltip"]?.stringValue == """
                London, GB
                ☁ overcast clouds, 8.9 °C (feels like 7.9 °C)
                humidity 90%  wind 2.1 m/s W
                10:00  🌧   10 °C   20%  light rain
                11:00  🌧   11 °C   40%  light rain
                12:00  🌧   12 °C   60%  light rain
                Weather data by Open-Meteo.com (CC BY 4.0)
                """)
        #expect(object.objectValue?.keys == ["text", "tooltip", "class", "alt", "percentage"])
    }

    @Test("waybar: the next hours begin at the step in progress; without a forecast there is no percentage")
    func waybarLater() throws {
        let later = now.addingTimeInterval(3600 + 600)
        let object = try JSONValue.parse(Array(try renderer(.waybar).line(.weather(londonWithForecast), at: later).utf8))
        #expect(object["percentage"] == .integer(40))
        #expect(object["tooltip"]?.stringValue?.contains("10:00") == false)
        let bare = try JSONValue.parse(Array(try renderer(.waybar).line(.weather(BarWeather(feature: BarFixtures.london)), at: now).utf8))
        #expect(bare["percentage"] == nil)
    }

    @Test("waybar: class lists the condition, stale and the most severe alert; the tooltip lists each alert")
    func waybarClasses() throws {
        let feature = BarFixtures.feature(condition: "Thunderstorm", stale: true, extra: ["alerts": BarFixtures.alerts])
        let content = BarContent.weather(BarWeather(feature: feature))
        #expect(BarRenderer.classes(content, at: now) == ["thunderstorm", "stale", "alert-severe"])
        let tooltip = try JSONValue.parse(Array(try renderer(.waybar).line(content, at: now).utf8))["tooltip"]?.stringValue ?? ""
        let lines = tooltip.split(separator: "\n").map(String.init)
        #expect(lines.contains("⚠ Severe: Winter Storm Warning — Heavy snow expected"))
        #expect(lines.contains("⚠ Minor: Wind Advisory — Wind Advisory until 6 PM"))
        #expect(
            lines.firstIndex(of: "⚠ Severe: Winter Storm Warning — Heavy snow expected")! < lines.firstIndex(
                of: "⚠ Minor: Wind Advisory — Wind Advisory until 6 PM")!)
        #expect(lines.last == "(not refreshed: the last lookup failed)")
        let unavailable = BarContent.unavailable(reason: "cannot connect to /run/weatherd/weatherd.sock: No such file or directory")
        #expect(BarRenderer.classes(unavailable, at: now) == ["unavailable"])
        let object = try JSONValue.parse(Array(try renderer(.waybar).line(unavailable, at: now).utf8))
        #expect(object["text"] == "weatherd unavailable")
        #expect(object["class"] == .array(["unavailable"]))
        #expect(
            object["tooltip"]?.stringValue?.hasPrefix("weatherd cannot be reached: cannot connect to /run/weatherd/weatherd.sock") == true)
    }

    @Test("waybar reads text as Pango markup: values are escaped, the template's own markup is kept")
    func waybarMarkup() throws {
        let feature = BarFixtures.feature(name: "Fish & <Chips>")
        let object = try JSONValue.parse(
            Array(try renderer(.waybar, "<b>{name}</b>").line(.weather(BarWeather(feature: feature)), at: now).utf8))
        #expect(object["text"] == "<b>Fish &amp; &lt;Chips&gt;</b>")
        #expect(object["tooltip"]?.stringValue?.hasPrefix("Fish &amp; &lt;Chips&gt;, GB") == true)
        #expect(try renderer(.text, "{name}").line(.weather(BarWeather(feature: feature)), at: now) == "Fish & <Chips>")
    }

    @Test("i3bar: a header with click events, then an endless array; blocks coloured by alert severity")
    func i3bar() throws {
        var output = BarOutput(renderer: try renderer(.i3bar, "{symbol} {temperature}{unit} {name}"))
        let first = output.lines(for: .weather(londonWithForecast), at: now)
        #expect(first.count == 3)
        #expect(try JSONValue.parse(Array(first[0].utf8)) == .object(["version": .integer(1), "click_events": .bool(true)]))
        #expect(first[1] == "[")
        let blocks = try JSONValue.parse(Array(first[2].utf8))
        #expect(
            blocks
                == .array([.object(["name": "weatherd", "instance": "owm:2643743", "full_text": "☁ 9°C London", "short_text": "☁ 9°C"])]))
        let severe = BarFixtures.feature(extra: ["alerts": BarFixtures.alerts])
        let next = output.lines(for: .weather(BarWeather(feature: severe)), at: now)
        #expect(next.count == 1 && next[0].hasPrefix(",["), "later block lists follow a comma")
        let block = try JSONValue.parse(Array(next[0].dropFirst().utf8)).arrayValue?.first
        #expect(block?["color"] == "#FF9500")
        #expect(BarRenderer.color(severity: "extreme") == "#FF3B30")
        let unavailable = try JSONValue.parse(Array(try renderer(.i3bar).line(.unavailable(reason: "x"), at: now).utf8)).arrayValue?.first
        #expect(unavailable?["full_text"] == "weatherd unavailable")
        #expect(unavailable?["color"] == "#888888")
    }

    @Test("a line is written only when it differs from the last one written")
    func writesOnlyChanges() throws {
        var output = BarOutput(renderer: try renderer(.text))
        #expect(output.lines(for: .weather(londonWithForecast), at: now) == ["☁ 9°C"])
        #expect(output.lines(for: .weather(londonWithForecast), at: now).isEmpty)
        // Another feature that reads the same: nothing to write either.
        #expect(output.lines(for: .weather(BarWeather(feature: BarFixtures.feature(temperature: 9.2))), at: now).isEmpty)
        #expect(output.lines(for: .unavailable(reason: "gone"), at: now) == ["weatherd unavailable"])
        #expect(output.lines(for: .unavailable(reason: "still gone"), at: now).isEmpty)
        #expect(output.lines(for: .weather(BarWeather(feature: BarFixtures.paris)), at: now) == ["☀ 13°C"])
        var waybar = BarOutput(renderer: try renderer(.waybar))
        #expect(waybar.lines(for: .weather(londonWithForecast), at: now).count == 1)
        #expect(waybar.lines(for: .weather(londonWithForecast), at: now).isEmpty)
        #expect(
            waybar.lines(for: .weather(BarWeather(feature: BarFixtures.feature(temperature: 9.2))), at: now).count == 1,
            "the tooltip differs")
    }

    @Test("i3bar click lines: the opening bracket and commas are skipped; anything else is not a click")
    func clicks() {
        #expect(BarClick(line: "[") == nil)
        #expect(BarClick(line: "") == nil)
        #expect(
            BarClick(line: #"{"name":"weatherd","instance":"owm:1","button":1,"x":10,"y":5}"#) == BarClick(button: 1, instance: "owm:1"))
        #expect(BarClick(line: #",{"name":"weatherd","button":3}"#) == BarClick(button: 3))
        #expect(BarClick(line: #"[{"name":"weatherd","button":1}"#) == BarClick(button: 1))
        #expect(BarClick(line: "not json") == nil)
        #expect(BarClick(line: #"{"name":"weatherd"}"#) == nil)
    }
}
