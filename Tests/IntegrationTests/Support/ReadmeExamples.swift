import Foundation
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The examples of the README's "Using weatherctl" section: its ```sh blocks' `export` lines (the
/// set-up) and their `weatherctl` and `socat` commands, each as written, without its comment; and
/// each command's comment, which says what it prints.
struct ReadmeExamples {
    var setup: [String] = []
    var commands: [String] = []
    /// The lines of each command's comment (its own and the comment-only lines under it), without `# `.
    var comments: [String: [String]] = [:]

    static func read() throws -> ReadmeExamples {
        let text = try String(contentsOfFile: TestEnvironment.packageRoot + "/README.md", encoding: .utf8)
        guard let start = text.range(of: "\n## Using weatherctl\n") else {
            throw ChildProcessError(message: "README.md has no section \"## Using weatherctl\"")
        }
        let rest = text[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var examples = ReadmeExamples()
        var inBlock = false
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if !inBlock {
                inBlock = line == "```sh"
                continue
            }
            if line.hasPrefix("```") {
                inBlock = false
                continue
            }
            // The code is what comes before a comment: " # …" (or a line that is only a comment).
            let comment = line.range(of: "# ").map { String(line[$0.upperBound...]) }
            let code = String(line.range(of: " # ").map { line[..<$0.lowerBound] } ?? line[...])
                .trimmingCharacters(in: .whitespaces)
            if code.isEmpty || code.hasPrefix("#") {
                // A comment-only line goes on with the comment of the command above it.
                if let last = examples.commands.last, let comment, examples.comments[last] != nil {
                    examples.comments[last]?.append(comment)
                }
                continue
            }
            if code.hasPrefix("weatherctl ") || code.contains("socat ") {
                examples.commands.append(code)
                if let comment, line.contains(" # ") { examples.comments[code] = [comment] }
            } else {
                examples.setup.append(code)
            }
        }
        return examples
    }

    /// Runs `command` after the set-up lines, as written, with bash in `demo`'s directory (where
    /// `run/weatherd.sock` is the demo's socket). `swift build --show-bin-path` answers the directory
    /// of the binaries under test (a shell function stands in for the toolchain). With `untilFirstLine`
    /// (a command that runs until stopped), it is stopped once it printed a line (of JSON): status 0 then.
    func run(_ command: String, in demo: DemoRun, until untilFirstLine: Bool) async throws -> CommandResult {
        let script = """
            swift() { if [ "$*" = "build --show-bin-path" ]; then echo "$WEATHERD_TEST_BIN_DIR"; else return 127; fi; }
            cd \(demo.directory.path)
            \(setup.joined(separator: "\n"))
            \(command)
            """
        let environment = TestEnvironment.childEnvironment(["WEATHERD_TEST_BIN_DIR": TestEnvironment.binDirectory])
        guard untilFirstLine else {
            return try await runCommand("/bin/bash", ["-c", script], environment: environment, timeout: .seconds(30))
        }
        let child = try await ChildProcess("/bin/bash", ["-c", script], environment: environment, name: command)
        defer { child.killProcessGroup() }
        let line = try? await child.waitForLine(containing: "{", on: \.stdout, timeout: .seconds(15))
        guard line != nil else {
            let ended = try await child.waitForExitAndOutput()
            return CommandResult(
                status: ended.exitedNormally ? ended.status : 128 + ended.status, stdout: child.stdoutText, stderr: child.stderrText)
        }
        return CommandResult(status: 0, stdout: child.stdoutText, stderr: child.stderrText)
    }

    /// What an example must do: its exit status, the shape of what it prints (nil: it holds), and
    /// how that compares with what its comment in the README says.
    struct Shape: Sendable {
        var status: Int32 = 0
        /// Runs until stopped (`watch`): only its first line is looked at.
        var untilFirstLine = false
        var readme = Said.prose
        var check: @Sendable (_ stdout: String, _ stderr: String) -> String?

        init(
            status: Int32 = 0, untilFirstLine: Bool = false, readme: Said = .prose,
            check: @escaping @Sendable (_ stdout: String, _ stderr: String) -> String?
        ) {
            self.status = status
            self.untilFirstLine = untilFirstLine
            self.readme = readme
            self.check = check
        }

        /// This shape, and what it prints is what the README says (`said`).
        func said(_ said: Said) -> Shape {
            var shape = self
            shape.readme = said
            return shape
        }
    }

    /// How the README's comment on an example says what it prints. Each comment line is compared up
    /// to a note after three spaces and a parenthesis (`   (exit status 1)`); `mask` takes out of
    /// both sides what changes from run to run (the hour of a forecast step, the requests spent).
    enum Said: Sendable {
        /// The comment describes what it prints; the shape alone is checked.
        case prose
        /// Its first lines on stdout (stderr for `onStderr`) are the comment's lines.
        case lines(onStderr: Bool = false, mask: @Sendable (String) -> String = { $0 })
        /// Its one line is the comment's lines, wrapped between two fields (joined by two spaces).
        case wrapped(mask: @Sendable (String) -> String = { $0 })

        /// What is wrong with what it printed, compared with `comment`; nil when they agree.
        func problem(comment: [String], stdout: String, stderr: String) -> String? {
            func cut(_ line: String) -> String {
                String(line.range(of: "   (").map { line[..<$0.lowerBound] } ?? line[...])
                    .trimmingCharacters(in: .whitespaces)
            }
            switch self {
            case .prose:
                return nil
            case .lines(let onStderr, let mask):
                let said = comment.map { mask(cut($0)) }
                let printed = ReadmeExamples.lines(onStderr ? stderr : stdout).prefix(said.count).map(mask)
                return printed == said ? nil : "the README says it prints \(said), it printed \(printed)"
            case .wrapped(let mask):
                let said = mask(comment.map(cut).joined(separator: "  "))
                let printed = ReadmeExamples.lines(stdout).first.map(mask)
                return printed == said ? nil : "the README says it prints \(said), it printed \(printed ?? "nothing")"
            }
        }
    }

    /// A forecast step's day and time (`Fri 27 Nov 00:00`), which move with the present, masked.
    @Sendable static func maskStepTime(_ line: String) -> String {
        line.replacing(#/^\w{3} \d\d \w{3} \d\d:\d\d/#, with: "DAY HH:MM")
    }

    /// A weather symbol's night twin (`☾` clear sky, `🌧` light rain at night) as its day glyph: the demo's
    /// synthesized weather follows the sun, so what the README shows by day prints as its twin at night.
    @Sendable static func maskDaylight(_ line: String) -> String {
        line.replacing("☾", with: "☀").replacing("🌦", with: "🌧")
    }

    /// The requests spent so far (`budget 29/60`) and the latest input (the region asked, or a fix
    /// that came first), which the examples' timing may change, masked.
    @Sendable static func maskState(_ line: String) -> String {
        line.replacing(#/budget \d+\//#, with: "budget N/").replacing(#/input \w+ \S+/#, with: "input INPUT")
    }

    /// A weather line: `PLACE  8.9 °C  ☁ overcast clouds  humidity 90%  wind 2.1 m/s`.
    static var weatherLine: Regex<(Substring, place: Substring, Substring)> {
        #/^(?<place>.+)  -?\d+\.\d °[CF]  .+  humidity \d+%  wind \d+\.\d (m/s|mph)$/#
    }

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    static func weather(startingWith place: String?) -> Shape {
        Shape { stdout, _ in
            guard let first = lines(stdout).first, let match = first.wholeMatch(of: weatherLine) else {
                return "not a weather line first"
            }
            if let place, !match.place.hasPrefix(place) { return "not the weather of \(place)" }
            return nil
        }
    }

    static func json(_ check: @escaping @Sendable (JSONValue) -> String?) -> Shape {
        Shape { stdout, _ in
            guard let first = lines(stdout).first, let value = try? JSONValue.parse(Array(first.utf8)) else { return "not JSON" }
            return check(value)
        }
    }

    static func feature(_ check: @escaping @Sendable (JSONValue) -> String? = { _ in nil }) -> Shape {
        json { $0["type"]?.stringValue == "Feature" ? check($0) : "not a Feature" }
    }

    static func accepted() -> Shape {
        Shape { stdout, _ in stdout == "accepted\n" ? nil : "not \"accepted\"" }
    }

    /// The hours from a forecast's first step to its last, from the steps' `at`.
    static func forecastHours(_ feature: JSONValue) -> Double? {
        let times = (feature["properties"]?["forecast"]?.arrayValue ?? []).compactMap { step in
            step["at"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) }
        }
        guard let first = times.first, let last = times.last else { return nil }
        return last.timeIntervalSince(first) / 3600
    }

    /// Every example of the README, by its command as written.
    static let shapes: [String: Shape] = [
        "weatherctl search London": weather(startingWith: "London, ").said(.lines(mask: maskDaylight)),
        "weatherctl places Springfield": Shape { stdout, _ in
            let all = lines(stdout)
            guard all.count >= 2, all.allSatisfy({ $0.hasPrefix("Springfield, ") && $0.contains(#/  -?\d+\.\d\d, -?\d+\.\d\d/#) })
            else { return "not one line per Springfield with its coordinates" }
            return all[0].hasPrefix("Springfield, Illinois, US  39.80, -89.64") ? nil : "not Springfield, Illinois first"
        }.said(.lines()),
        "weatherctl places Spring": Shape(readme: .lines()) { stdout, _ in
            let all = lines(stdout)
            return all.count >= 2 && all.allSatisfy({ $0.hasPrefix("Springfield, ") }) ? nil : "not the Springfields"
        },
        #"weatherctl search "Springfield, MO, US""#: weather(startingWith: "Springfield, Missouri, US").said(.lines(mask: maskDaylight)),
        #"weatherctl search "New York,US" --json"#: feature { $0["properties"]?["name"]?.stringValue == "New York" ? nil : "not New York" },
        "weatherctl search Atlantis": Shape(status: 1, readme: .lines(onStderr: true)) { stdout, stderr in
            stdout.isEmpty && stderr == "weatherctl: city not found: Atlantis\n" ? nil : "not city not found"
        },
        "weatherctl search Enschede": Shape { stdout, stderr in
            if let problem = weather(startingWith: "Enschede, Overijssel, NL").check(stdout, stderr) { return problem }
            let all = lines(stdout)
            guard all.contains("Weather data by Open-Meteo.com (CC BY 4.0)") else { return "no Open-Meteo credit" }
            return all.last == AirQuality.attribution ? nil : "no CAMS credit last"
        }.said(.lines(mask: maskDaylight)),
        "weatherctl locate": weather(startingWith: nil).said(.lines(mask: maskDaylight)),
        "weatherctl locate --timeout 5 --json": feature { feature in
            let fix = feature["properties"]?["fix"]
            let keys = ["lat", "lon", "horizontal_error", "mode", "source"]
            return keys.allSatisfy({ fix?[$0]?.isNull == false }) ? nil : "no properties.fix {lat, lon, horizontal_error, mode, source}"
        },
        "weatherctl region 44.34 10.99": accepted().said(.lines()),
        "weatherctl region -37.7 175.3 --span 2 2": accepted(),
        "weatherctl state": Shape(readme: .wrapped(mask: maskState)) { stdout, _ in
            let shape =
                #/^(idle|running)  phase (loading|populated|empty|error)  .*pending \d+  gps connected  budget \d+/\d+ a minute  providers openweathermap .*\(sample data\), open-meteo .*\(sample data\)\n$/#
            return stdout.wholeMatch(of: shape) != nil
                ? nil : "not one state line with gps connected, the budget and both providers' sample data"
        },
        "weatherctl overlays": json { $0["type"]?.stringValue == "FeatureCollection" ? nil : "not a FeatureCollection" },
        "weatherctl watch": Shape(untilFirstLine: true) { stdout, stderr in
            json { $0["jsonrpc"]?.stringValue == "2.0" && $0["method"]?.stringValue != nil ? nil : "not a notification" }
                .check(stdout, stderr)
        },
        "weatherctl watch --geojson": Shape(untilFirstLine: true) { stdout, stderr in
            json { $0["type"]?.stringValue == "FeatureCollection" ? nil : "not a FeatureCollection" }.check(stdout, stderr)
        },
        "weatherctl watch --no-replay --topics state": Shape(untilFirstLine: true) { stdout, stderr in
            json { $0["method"]?.stringValue == "state" ? nil : "not a state notification" }.check(stdout, stderr)
        },
        "weatherctl forecast Paris": Shape(readme: .lines(mask: maskStepTime)) { stdout, _ in
            let all = lines(stdout)
            guard all.first?.wholeMatch(of: #/Paris, (.+, )?FR/#) != nil else { return "not Paris first" }
            let steps = all.dropFirst().filter { $0.contains(#/^\w{3} \d\d \w{3} \d\d:\d\d  .+ -?\d+\.\d °C  precip /#) }
            guard steps.count >= 8 else { return "\(steps.count) steps: not 24 hours of them" }
            let hours = steps.prefix(2).compactMap { Int($0.split(separator: " ")[3].prefix(2)) }
            let step = hours.count == 2 ? (hours[1] - hours[0] + 24) % 24 : 0
            return step * steps.count >= 24 ? nil : "\(steps.count) steps of \(step) h: not 24 hours"
        },
        "weatherctl forecast --at 44.34 10.99 --hours 120 --json": feature { feature in
            guard let hours = forecastHours(feature) else { return "no properties.forecast" }
            return hours >= 117 ? nil : "the steps cover \(hours) h, not 120"
        },
        "weatherctl cities": Shape { stdout, _ in
            lines(stdout) == ["Seoul,KR", "London,GB", "Enschede,NL", "Norman,US"] ? nil : "not the demo's watched cities"
        },
        "weatherctl cities add Paris": Shape { stdout, _ in lines(stdout).last == "Paris" ? nil : "Paris not added" },
        "weatherctl cities remove Paris": Shape { stdout, _ in lines(stdout).contains("Paris") ? "Paris not removed" : nil },
        #"echo '{"jsonrpc":"2.0","id":1,"method":"search","params":{"city":"Zocca"}}' | socat - UNIX-CONNECT:run/weatherd.sock"#:
            json { $0["result"]?["properties"]?["name"]?.stringValue == "Zocca" ? nil : "not the reply with Zocca's Feature" },
    ]
}
