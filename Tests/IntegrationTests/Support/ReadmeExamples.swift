import Foundation
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The examples of the README's "Using weatherctl" section: its ```sh blocks' `export` lines (the
/// set-up) and their `weatherctl` and `socat` commands, each as written, without its comment.
struct ReadmeExamples {
    var setup: [String] = []
    var commands: [String] = []

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
            let code = String(line.range(of: " # ").map { line[..<$0.lowerBound] } ?? line[...])
                .trimmingCharacters(in: .whitespaces)
            if code.isEmpty || code.hasPrefix("#") { continue }
            if code.hasPrefix("weatherctl ") || code.contains("socat ") {
                examples.commands.append(code)
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
        let child = try ChildProcess("/bin/bash", ["-c", script], environment: environment, name: command)
        defer { child.killProcessGroup() }
        let line = try? await child.waitForLine(containing: "{", on: \.stdout, timeout: .seconds(15))
        guard line != nil else {
            let ended = try await child.waitForExitAndOutput()
            return CommandResult(
                status: ended.exitedNormally ? ended.status : 128 + ended.status, stdout: child.stdoutText, stderr: child.stderrText)
        }
        return CommandResult(status: 0, stdout: child.stdoutText, stderr: child.stderrText)
    }

    /// What an example must do: its exit status and the shape of what it prints (nil: it holds).
    struct Shape: Sendable {
        var status: Int32 = 0
        /// Runs until stopped (`watch`): only its first line is looked at.
        var untilFirstLine = false
        var check: @Sendable (_ stdout: String, _ stderr: String) -> String?
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
        "weatherctl search London": weather(startingWith: "London, "),
        "weatherctl places Springfield": Shape { stdout, _ in
            let all = lines(stdout)
            guard all.count >= 2, all.allSatisfy({ $0.hasPrefix("Springfield, ") && $0.contains(#/  -?\d+\.\d\d, -?\d+\.\d\d/#) })
            else { return "not one line per Springfield with its coordinates" }
            return all[0].hasPrefix("Springfield, Illinois, US  39.80, -89.64") ? nil : "not Springfield, Illinois first"
        },
        #"weatherctl search "Springfield, MO, US""#: weather(startingWith: "Springfield, Missouri, US"),
        #"weatherctl search "New York,US" --json"#: feature { $0["properties"]?["name"]?.stringValue == "New York" ? nil : "not New York" },
        "weatherctl search Atlantis": Shape(status: 1) { stdout, stderr in
            stdout.isEmpty && stderr == "weatherctl: city not found: Atlantis\n" ? nil : "not city not found"
        },
        "weatherctl search Enschede": Shape { stdout, stderr in
            if let problem = weather(startingWith: "Enschede, Overijssel, NL").check(stdout, stderr) { return problem }
            return lines(stdout).last == "Weather data by Open-Meteo.com (CC BY 4.0)" ? nil : "no Open-Meteo credit"
        },
        "weatherctl locate": weather(startingWith: nil),
        "weatherctl locate --timeout 5 --json": feature { feature in
            let fix = feature["properties"]?["fix"]
            let keys = ["lat", "lon", "horizontal_error", "mode", "source"]
            return keys.allSatisfy({ fix?[$0]?.isNull == false }) ? nil : "no properties.fix {lat, lon, horizontal_error, mode, source}"
        },
        "weatherctl region 44.34 10.99": accepted(),
        "weatherctl region -37.7 175.3 --span 2 2": accepted(),
        "weatherctl state": Shape { stdout, _ in
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
        "weatherctl forecast Paris": Shape { stdout, _ in
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
            lines(stdout) == ["Seoul,KR", "London,GB", "Enschede,NL"] ? nil : "not the demo's watched cities"
        },
        "weatherctl cities add Paris": Shape { stdout, _ in lines(stdout).last == "Paris" ? nil : "Paris not added" },
        "weatherctl cities remove Paris": Shape { stdout, _ in lines(stdout).contains("Paris") ? "Paris not removed" : nil },
        #"echo '{"jsonrpc":"2.0","id":1,"method":"search","params":{"city":"Zocca"}}' | socat - UNIX-CONNECT:run/weatherd.sock"#:
            json { $0["result"]?["properties"]?["name"]?.stringValue == "Zocca" ? nil : "not the reply with Zocca's Feature" },
    ]
}
