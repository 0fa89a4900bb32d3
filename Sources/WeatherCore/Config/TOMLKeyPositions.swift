/// Where each key of a TOML document is written: the line and column (both from 1, columns in Unicode
/// scalars as toml++ counts them) of its first character, by the key path a ``ConfigProblem`` names
/// (`gpsd.port`, `state."my dir"`, `cities[1]` for an element of an array). TOMLKit gives positions
/// for syntax errors only; this reads them off the text of a document that parsed.
///
/// A table's position is where its header (or the first key that makes it) names it; a key given
/// twice (which TOML forbids) keeps its first position.
struct TOMLKeyPositions {
    private(set) var positions: [String: (line: Int, column: Int)] = [:]

    private var scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var column = 1

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { index = 1 }  // a byte order mark: toml++ skips it, uncounted
        document()
    }

    /// The position of `path`, else of the array it is an element of (`cities[1]` → `cities`).
    func position(of path: String) -> (line: Int, column: Int)? {
        if let found = positions[path] { return found }
        if path.hasSuffix("]"), let open = path.lastIndex(of: "[") { return position(of: String(path[..<open])) }
        return nil
    }

    // MARK: Scanning

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance() {
        guard let scalar = current else { return }
        index += 1
        if scalar == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
    }

    private mutating func advance(_ count: Int) {
        for _ in 0..<count { advance() }
    }

    private func starts(with text: String) -> Bool {
        var offset = 0
        for scalar in text.unicodeScalars {
            guard peek(offset) == scalar else { return false }
            offset += 1
        }
        return true
    }

    /// Spaces and tabs.
    private mutating func skipBlanks() {
        while current == " " || current == "\t" { advance() }
    }

    /// Blanks, line ends and comments.
    private mutating func skipBlankLines() {
        while let scalar = current {
            if scalar == " " || scalar == "\t" || scalar == "\r" || scalar == "\n" {
                advance()
            } else if scalar == "#" {
                while let next = current, next != "\n" { advance() }
            } else {
                return
            }
        }
    }

    private mutating func record(_ path: String, _ at: (line: Int, column: Int)) {
        if positions[path] == nil { positions[path] = at }
    }

    /// Records `segments` under `parent` (each table a dotted key makes on the way too); returns the path.
    private mutating func record(_ segments: [String], under parent: String, at: (line: Int, column: Int)) -> String {
        var path = parent
        for segment in segments {
            path = ConfigText.path(path, segment)
            record(path, at)
        }
        return path
    }

    private mutating func document() {
        var table = ""
        while true {
            skipBlankLines()
            guard let scalar = current else { return }
            if scalar == "[" {
                let arrayOfTables = peek(1) == "["
                advance(arrayOfTables ? 2 : 1)
                skipBlanks()
                let at = (line, column)
                table = record(key(), under: "", at: at)
                skipBlanks()
                advance(arrayOfTables ? 2 : 1)
            } else {
                keyValue(under: table)
            }
            // The rest of the line: blanks and a comment.
            while let next = current, next != "\n" { advance() }
        }
    }

    /// `key = value`, its key recorded under `parent`.
    private mutating func keyValue(under parent: String) {
        let at = (line, column)
        let path = record(key(), under: parent, at: at)
        skipBlanks()
        if current == "=" { advance() }
        skipBlanks()
        value(at: path)
    }

    /// A key of one or more dotted parts, each bare, "basic" or 'literal'.
    private mutating func key() -> [String] {
        var segments: [String] = []
        while true {
            skipBlanks()
            switch current {
            case "\"": segments.append(basicString())
            case "'": segments.append(literalString())
            default:
                var bare = ""
                while let scalar = current, Self.isBare(scalar) {
                    bare.unicodeScalars.append(scalar)
                    advance()
                }
                segments.append(bare)
            }
            skipBlanks()
            guard current == "." else { return segments }
            advance()
        }
    }

    private static func isBare(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
    }

    /// A value at `path`: the elements of an array are recorded as `path[i]`, the keys of an inline
    /// table under `path`.
    private mutating func value(at path: String) {
        switch current {
        case "\"":
            if starts(with: "\"\"\"") { skipMultilineString(quote: "\"") } else { _ = basicString() }
        case "'":
            if starts(with: "'''") { skipMultilineString(quote: "'") } else { _ = literalString() }
        case "[":
            advance()
            var element = 0
            while true {
                skipBlankLines()
                guard let scalar = current, scalar != "]" else { break }
                if scalar == "," {
                    advance()
                    continue
                }
                let elementPath = "\(path)[\(element)]"
                record(elementPath, (line, column))
                value(at: elementPath)
                element += 1
            }
            advance()
        case "{":
            advance()
            while true {
                skipBlanks()
                guard let scalar = current, scalar != "}", scalar != "\n" else { break }
                if scalar == "," {
                    advance()
                    continue
                }
                keyValue(under: path)
            }
            advance()
        default:
            // A number, boolean or date: up to what ends a value.
            while let scalar = current, !",]}\n#".unicodeScalars.contains(scalar) { advance() }
        }
    }

    /// A "basic" string (the opening quote is current), its escapes decoded.
    private mutating func basicString() -> String {
        advance()
        var text = ""
        while let scalar = current, scalar != "\"", scalar != "\n" {
            advance()
            guard scalar == "\\", let escaped = current else {
                text.unicodeScalars.append(scalar)
                continue
            }
            advance()
            switch escaped {
            case "b": text += "\u{8}"
            case "t": text += "\t"
            case "n": text += "\n"
            case "f": text += "\u{C}"
            case "r": text += "\r"
            case "e": text += "\u{1B}"
            case "u", "U":
                var hex = ""
                for _ in 0..<(escaped == "u" ? 4 : 8) {
                    guard let digit = current else { break }
                    hex.unicodeScalars.append(digit)
                    advance()
                }
                if let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) { text.unicodeScalars.append(decoded) }
            default: text.unicodeScalars.append(escaped)
            }
        }
        advance()
        return text
    }

    /// A 'literal' string (the opening quote is current), as written.
    private mutating func literalString() -> String {
        advance()
        var text = ""
        while let scalar = current, scalar != "'", scalar != "\n" {
            text.unicodeScalars.append(scalar)
            advance()
        }
        advance()
        return text
    }

    /// A multi-line string of `quote`s (three of them are current), to its closing three (up to two
    /// more quotes may end its text).
    private mutating func skipMultilineString(quote: Unicode.Scalar) {
        let delimiter = String(repeating: Character(quote), count: 3)
        advance(3)
        while current != nil {
            if quote == "\"" && current == "\\" {
                advance(2)
            } else if starts(with: delimiter) {
                advance(3)
                while current == quote { advance() }
                return
            } else {
                advance()
            }
        }
    }
}
