import Foundation
import Testing
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `weatherctl bar` in the real bars: waybar under a headless sway, i3bar under Xvfb with i3. Each
/// test reads the bar off a screenshot (tesseract), awaits a change to be drawn, and i3bar's test
/// clicks the block (xdotool). The screenshots land in `.build/artifacts/` (docs/ has copies); sway runs
/// swaybar beside waybar, both speaking to weatherctl bar.
///
/// A headless sway's seat has no pointer (no input device), so nothing can click waybar there:
/// waybar's clicks are the same signals the integration tests send (`on-click` in docs/status-bars.md).
@Suite("weatherctl bar in waybar and i3bar", .serialized)
struct RealBarTests {
    static let artifacts = TestEnvironment.packageRoot + "/.build/artifacts"

    /// A directory the unprivileged user can read, holding a copy of weatherctl and the daemon's socket
    /// (mode 0666), with the watched cities London and Paris.
    struct Setup {
        let directory: TemporaryDirectory
        let daemon: DaemonProcess
        let replay: ReplayServer
        let weatherctl: String

        init() async throws {
            directory = try TemporaryDirectory()
            chmod(directory.path, 0o755)
            replay = try await ReplayServer.start()
            var setup = DaemonSetup(directory: directory, replay: replay, cities: ["London", "Paris"])
            setup.socketMode = "0666"
            daemon = try await DaemonProcess.start(setup)
            weatherctl = directory.file("weatherctl")
            try FileManager.default.copyItem(atPath: try TestEnvironment.binary("weatherctl"), toPath: weatherctl)
            chmod(weatherctl, 0o755)
        }

        /// The bar's command line, as a bar's configuration runs it (sway's configuration takes it in
        /// double quotes: it would take the template's single quotes away).
        func barCommand(_ format: String) -> String {
            "exec \(weatherctl) --socket \(daemon.socketPath) bar --format \(format) --template '{symbol} {name} {temperature}{unit}'"
        }
    }

    /// The text tesseract reads in the top `height` pixels of `image`, enlarged, without spaces.
    static func readBar(_ image: String, top: Int, height: Int) async throws -> String {
        let enlarged = image + ".ocr.png"
        let convert = try await runCommand(
            "/usr/bin/convert",
            [image, "-crop", "500x\(height)+300+\(top)", "+repage", "-resize", "300%", "-colorspace", "Gray", enlarged],
            environment: TestEnvironment.childEnvironment())
        guard convert.status == 0 else { throw ChildProcessError(message: "convert: \(convert)") }
        let ocr = try await runCommand(
            "/usr/bin/tesseract", [enlarged, "-", "--psm", "7"], environment: TestEnvironment.childEnvironment())
        return ocr.stdout.filter { !$0.isWhitespace }
    }

    /// Takes screenshots with `shoot` until the bar reads `text` (or the deadline passes); returns the
    /// last screenshot's path.
    static func awaitBar(
        containing text: String, timeout: Duration = .seconds(60), top: Int = 0, height: Int, shoot: (String) async throws -> Void
    ) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        let image = FileManager.default.temporaryDirectory.path + "/bar-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).png"
        var read = ""
        while ContinuousClock.now < deadline {
            try await shoot(image)
            read = try await readBar(image, top: top, height: height)
            if read.contains(text) { return image }
            try await Task.sleep(for: .milliseconds(200))  // a pause between screenshots, not a wait for the change
        }
        throw ChildProcessError(message: "the bar never read \"\(text)\"; it last read \"\(read)\"")
    }

    /// Checks `condition` every 100 ms until it holds (or the deadline passes).
    static func poll<T>(_ what: String, timeout: Duration = .seconds(30), _ condition: () throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = try condition() { return value }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ChildProcessError(message: "timed out after \(timeout) waiting for \(what)")
    }

    /// The processes whose command line begins with `executable`.
    static func processes(running executable: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let argv0 = data.split(separator: 0, maxSplits: 1).first.map { String(decoding: $0, as: UTF8.self) }
            return argv0 == executable ? pid : nil
        }
    }

    /// Keeps the top `height` pixels of `image` (the bar) in the artifacts as `name`.
    static func keep(_ image: String, as name: String, top: Int = 0, height: Int) async throws {
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let result = try await runCommand(
            "/usr/bin/convert", [image, "-crop", "800x\(height)+0+\(top)", "+repage", artifacts + "/" + name],
            environment: TestEnvironment.childEnvironment())
        guard result.status == 0 else { throw ChildProcessError(message: "convert: \(result)") }
    }

    /// Awaits the end of a process Foundation may not see end (a child it started keeps a
    /// descriptor Foundation watches): the waitid thread's view.
    static func awaitExit(_ process: ChildProcess) async throws {
        _ = try await process.exited.wait(for: "\(process.name) to exit", timeout: .seconds(20)) { $0 }
    }

    @Test("waybar and swaybar under a headless sway show the bar's text and redraw it when the weather shown changes")
    func waybar() async throws {
        let setup = try await Setup()
        let directory = setup.directory
        // sway refuses to run as root: it runs as nobody, with a runtime directory of its own.
        let asRoot = getuid() == 0
        let runtime = directory.file("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        if asRoot { chown(runtime, 65534, 65534) }
        chmod(runtime, 0o700)
        let waybarConfig = try directory.write(
            "waybar.json",
            JSONValue.object([
                "layer": "top", "position": "top", "height": .integer(40), "modules-right": .array(["custom/weather"]),
                "custom/weather": .object(["exec": .string(setup.barCommand("waybar")), "return-type": "json"]),
            ]).serialized)
        let style = try directory.write(
            "waybar.css",
            """
            * { font-family: "DejaVu Sans"; font-size: 24px; }
            window#waybar { background: #ffffff; color: #000000; }
            #custom-weather { padding: 0 12px; }
            #custom-weather.unavailable { color: #888888; }
            """)
        let swayConfig = try directory.write(
            "sway.conf",
            """
            output HEADLESS-1 resolution 800x120
            exec waybar -c \(waybarConfig) -s \(style) > \(runtime)/waybar.log 2>&1
            bar {
                position bottom
                font pango:DejaVu Sans 18
                status_command "\(setup.barCommand("i3bar"))"
                colors {
                    background #ffffff
                    statusline #000000
                }
            }
            """)
        for file in [waybarConfig, style, swayConfig] { chmod(file, 0o644) }
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": runtime, "XDG_RUNTIME_DIR": runtime, "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "TZ": "UTC",
        ]
        let unprivileged = asRoot ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        let swayCommand = unprivileged + ["/usr/bin/sway", "-c", swayConfig]
        let sway = try await ChildProcess(swayCommand[0], Array(swayCommand.dropFirst()), environment: environment, name: "sway")
        defer { sway.killProcessGroup() }
        // The Wayland socket sway creates.
        let display = try await Self.poll("sway's Wayland socket") {
            if !sway.isRunning { throw ChildProcessError(message: "sway ended: \(sway.stderrText)") }
            return (try? FileManager.default.contentsOfDirectory(atPath: runtime))?.first {
                $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock")
            }
        }
        func shoot(_ image: String) async throws {
            let command = unprivileged + ["/usr/bin/grim", runtime + "/shot.png"]
            var shotEnvironment = environment
            shotEnvironment["WAYLAND_DISPLAY"] = display
            let result = try await runCommand(command[0], Array(command.dropFirst()), environment: shotEnvironment)
            guard result.status == 0 else { throw ChildProcessError(message: "grim: \(result)") }
            try? FileManager.default.removeItem(atPath: image)
            try FileManager.default.copyItem(atPath: runtime + "/shot.png", toPath: image)
        }
        // waybar at the top, swaybar (the i3bar protocol) at the bottom.
        let first = try await Self.awaitBar(containing: "London", height: 40, shoot: shoot)
        try await Self.keep(first, as: "bar-waybar.png", height: 40)
        let swaybar = try await Self.awaitBar(containing: "London", top: 80, height: 40, shoot: shoot)
        try await Self.keep(swaybar, as: "bar-swaybar.png", top: 80, height: 40)
        #expect(try await setup.daemon.weatherctl(["search", "Paris"]).status == 0)
        let changed = try await Self.awaitBar(containing: "Paris", height: 40, shoot: shoot)
        try await Self.keep(changed, as: "bar-waybar-changed.png", height: 40)
        _ = try await Self.awaitBar(containing: "Paris", top: 80, height: 40, shoot: shoot)
        // The daemon gone: the bars say so.
        try await setup.daemon.kill()
        let gone = try await Self.awaitBar(containing: "weatherdunavailable", height: 40, shoot: shoot)
        try await Self.keep(gone, as: "bar-waybar-unavailable.png", height: 40)
        _ = try await Self.awaitBar(containing: "weatherdunavailable", top: 80, height: 40, shoot: shoot)
        // Ended as a user ends the session (the test's children may start with SIGTERM blocked).
        let ipc = try #require(try FileManager.default.contentsOfDirectory(atPath: runtime).first { $0.hasPrefix("sway-ipc.") })
        var ipcEnvironment = environment
        ipcEnvironment["SWAYSOCK"] = runtime + "/" + ipc
        let exit = unprivileged + ["/usr/bin/swaymsg", "exit"]
        _ = try await runCommand(exit[0], Array(exit.dropFirst()), environment: ipcEnvironment)
        try await Self.awaitExit(sway)
        // waybar and swaybar go with sway, and each weatherctl with its bar: its output closed.
        _ = try await Self.poll("the bars' weatherctl to exit with them") { Self.processes(running: setup.weatherctl).isEmpty ? true : nil }
    }

    /// An Xvfb on a display it picks itself, and that display. With `-displayfd` it takes the first
    /// free display (a lock left by a killed Xvfb, whose process is gone, does not count) and prints
    /// its number once it accepts connections.
    static func startXvfb() async throws -> (ChildProcess, String) {
        let xvfb = try await ChildProcess(
            "/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "800x120x24", "-nolisten", "tcp"],
            environment: TestEnvironment.childEnvironment(), name: "Xvfb")
        let line = try await xvfb.stdout.wait(for: "Xvfb's display number") { captured -> String? in
            if let newline = captured.text.firstIndex(of: "\n") { return String(captured.text[..<newline]) }
            if captured.closed { throw ChildProcessError(message: "Xvfb ended without a display: \(xvfb.stderrText)") }
            return nil
        }
        guard let number = Int(line) else {
            xvfb.send(SIGKILL)
            throw ChildProcessError(message: "Xvfb printed \"\(line)\", not its display number")
        }
        return (xvfb, ":\(number)")
    }

    @Test("i3bar under Xvfb with i3 shows the block, a click (button 1) steps to the next watched city, button 3 back")
    func i3bar() async throws {
        let setup = try await Setup()
        let directory = setup.directory
        let (xvfb, display) = try await Self.startXvfb()
        defer { xvfb.send(SIGKILL) }
        let i3Config = try directory.write(
            "i3.conf",
            """
            # i3 config file (v4)
            font pango:DejaVu Sans 18
            bar {
                position top
                status_command \(setup.barCommand("i3bar"))
                colors {
                    background #ffffff
                    statusline #000000
                }
            }
            """)
        let environment = TestEnvironment.childEnvironment(["DISPLAY": display, "TZ": "UTC"])
        let i3 = try await ChildProcess("/usr/bin/i3", ["-c", i3Config], environment: environment, name: "i3")
        defer { i3.killProcessGroup() }
        func shoot(_ image: String) async throws {
            let result = try await runCommand("/usr/bin/import", ["-window", "root", image], environment: environment)
            guard result.status == 0 else { throw ChildProcessError(message: "import: \(result)") }
        }
        let first = try await Self.awaitBar(containing: "London", height: 40, shoot: shoot)
        try await Self.keep(first, as: "bar-i3bar.png", height: 33)
        // The block is right-aligned on the bar at the top: click its right end.
        func click(_ button: Int) async throws {
            let result = try await runCommand(
                "/usr/bin/xdotool", ["mousemove", "790", "12", "click", "\(button)"], environment: environment)
            guard result.status == 0 else { throw ChildProcessError(message: "xdotool: \(result)") }
        }
        try await click(1)
        let clicked = try await Self.awaitBar(containing: "Paris", height: 40, shoot: shoot)
        try await Self.keep(clicked, as: "bar-i3bar-clicked.png", height: 33)
        try await click(3)
        _ = try await Self.awaitBar(containing: "London", height: 40, shoot: shoot)
        // Ended as a user ends the session (the test's children may start with SIGTERM blocked).
        _ = try await runCommand("/usr/bin/i3-msg", ["exit"], environment: environment)
        try await Self.awaitExit(i3)
        xvfb.send(SIGTERM)
        _ = try await Self.poll("the bar to exit with i3bar") { Self.processes(running: setup.weatherctl).isEmpty ? true : nil }
    }
}
