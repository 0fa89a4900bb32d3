import ArgumentParser
import WeatherRPC
import WeatherSocket

struct ReloadCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make weatherd read its configuration again, and wait until it is in force.",
        discussion: """
            What SIGHUP does, but synchronous: weatherctl returns once the new configuration applies, \
            and fails (exit 1) when the file is broken (the running configuration then stays). The \
            systemd unit's ExecReload runs it, so `systemctl reload weatherd` returns after the reload.
            """)

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print the protocol object.") var json = false

    func run() throws {
        let result = try options.withConnection { try $0.call("reload") }
        if json { return printJSON(result) }
        let changed = result["changed"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let restart = result["restart_needed"]?.arrayValue?.compactMap(\.stringValue) ?? []
        output(changed.isEmpty ? "reloaded: nothing changed" : "reloaded: \(changed.joined(separator: ", ")) changed")
        if !restart.isEmpty { output("takes a restart: \(restart.joined(separator: ", "))") }
    }
}
