import WeatherRPC

/// A click event i3bar (or swaybar) sends on the bar's stdin: after a line `[`, one JSON object per
/// line, each after the first preceded by a comma.
struct BarClick: Sendable, Equatable {
    var button: Int
    var name: String?
    var instance: String?

    /// The click a line holds; nil for the opening `[`, an empty line, or anything that is not a click.
    init?(line: some StringProtocol) {
        var text = Substring(line).drop { $0 == " " || $0 == "\t" || $0 == "[" || $0 == "," || $0 == "\r" }
        while let last = text.last, last == " " || last == "\r" || last == "\t" { text = text.dropLast() }
        guard !text.isEmpty, let json = try? JSONValue.parse(Array(text.utf8)), let button = json["button"]?.intValue else {
            return nil
        }
        self.button = button
        self.name = json["name"]?.stringValue
        self.instance = json["instance"]?.stringValue
    }

    init(button: Int, name: String? = BarRenderer.blockName, instance: String? = nil) {
        self.button = button
        self.name = name
        self.instance = instance
    }
}
