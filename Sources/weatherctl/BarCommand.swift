import ArgumentParser
import WeatherRPC
import WeatherSocket

struct BarCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "bar",
        abstract: "Show the weather in a status bar (waybar, i3bar/swaybar, polybar, tmux), one line per change.",
        usage: "weatherctl bar [--format waybar|i3bar|text] [--city NAME | --location] [--template T]",
        discussion: """
            Runs until its output closes (or SIGTERM): it watches the daemon, never polls, and writes a \
            line only when what it shows changed. The place shown is chosen again at each change: the \
            weather at the daemon's location when there is one, else the latest text or location \
            search, else the first watched city. While the daemon cannot be reached it says so \
            (class "unavailable") and reconnects. With --format i3bar a click (button 1) steps \
            through the watched cities and button 3 goes back; SIGUSR1 and SIGUSR2 do the same for \
            bars that run a command on a click (polybar: kill -USR1 %pid%). Template placeholders: \
            {symbol} {temperature} {unit} {name} {description} {humidity} {wind} {aqi} {alerts}.
            """)

    @OptionGroup var options: GlobalOptions
    @Option(help: "waybar (JSON for its custom module), i3bar (the i3bar protocol, also swaybar) or text.")
    var format: BarFormat = .waybar
    @Option(help: ArgumentHelp("Show this place: a watched city by its name, else looked up.", valueName: "name"))
    var city: String?
    @Flag(help: "Show only the weather at the daemon's location.") var location = false
    @Option(help: ArgumentHelp("The text shown (default \"\(BarTemplate.defaultText)\").", valueName: "template"))
    var template: String?

    func validate() throws {
        if city != nil && location { throw ValidationError("--city and --location exclude each other") }
        if let city, city.trimmingSpaces.isEmpty { throw ValidationError("--city needs a name") }
        _ = try parsedTemplate()
    }

    private func parsedTemplate() throws -> BarTemplate {
        guard let template else { return .standard }
        do {
            return try BarTemplate(template)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let machine = BarMachine(options: BarMachine.Options(city: city, locationOnly: location))
        let output = BarOutput(renderer: BarRenderer(format: format, template: try parsedTemplate()))
        var loop = BarLoop(socketPath: options.socketPath, machine: machine, output: output, readsClicks: format == .i3bar)
        loop.run()
    }
}

extension BarFormat: ExpressibleByArgument {}
