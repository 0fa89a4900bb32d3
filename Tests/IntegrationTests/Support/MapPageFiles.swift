import Foundation

@testable import TestSupport

/// The files of the map page in the repository's `web/`, as the browser asks for them: what
/// `index.html` loads from `assets/` (but Leaflet, which is Debian's), the modules `app.js` imports,
/// directly or through another, and the `assets/` files a module fetches (but `config.json`, which
/// the daemon makes).
enum MapPageFiles {
    static let directory = TestEnvironment.packageRoot + "/web"

    /// Names under `web/`, sorted.
    static func loaded() throws -> [String] {
        let index = try String(contentsOfFile: directory + "/index.html", encoding: .utf8)
        var queue = index.matches(of: /(?:src|href)="assets\/([^"]+)"/).map { String($0.1) }.filter { !$0.hasPrefix("leaflet/") }
        var files = Set<String>()
        while let name = queue.popLast() {
            guard files.insert(name).inserted, name.hasSuffix(".js") else { continue }
            let module = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
            queue += module.matches(of: /\bfrom\s+'\.\/([^']+)'/).map { String($0.1) }
            queue += module.matches(of: /'assets\/([^']+)'/).map { String($0.1) }.filter { $0 != "config.json" }
        }
        return files.sorted()
    }
}
