/// What `weatherctl bar --template` takes: literal text with placeholders in braces, e.g.
/// `{symbol} {temperature}{unit}`. Parsed once, at start; an unknown placeholder is a usage error.
struct BarTemplate: Sendable, Equatable {
    /// The placeholders, as the reference lists them.
    enum Placeholder: String, Sendable, CaseIterable {
        case symbol, temperature, unit, name, description, humidity, wind, aqi, alerts
    }

    enum Piece: Sendable, Equatable {
        case literal(String)
        case placeholder(Placeholder)
    }

    /// The template when none is given.
    static let defaultText = "{symbol} {temperature}{unit}"
    static let standard = try! BarTemplate(defaultText)

    let pieces: [Piece]

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    /// - Throws: `ParseError` for an unknown placeholder or a brace left open.
    init(_ text: String) throws(ParseError) {
        var pieces: [Piece] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            literal += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw ParseError(description: "--template: '{' without '}' in \"\(text)\"")
            }
            let name = rest[rest.index(after: open)..<close]
            guard let placeholder = Placeholder(rawValue: String(name)) else {
                let known = Placeholder.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")
                throw ParseError(description: "--template: unknown placeholder {\(name)} (known: \(known))")
            }
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = ""
            pieces.append(.placeholder(placeholder))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        self.pieces = pieces
    }

    /// The text with each placeholder replaced by `value(placeholder)` (passed through `escape`;
    /// the template's own text is the user's and is left as it is), an unknown value by nothing.
    /// Runs of spaces an empty value leaves are one space, and the ends are trimmed.
    func render(escape: (String) -> String = { $0 }, _ value: (Placeholder) -> String?) -> String {
        var text = ""
        for piece in pieces {
            switch piece {
            case .literal(let literal): text += literal
            case .placeholder(let placeholder): text += value(placeholder).map(escape) ?? ""
            }
        }
        var squeezed = ""
        squeezed.reserveCapacity(text.utf8.count)
        for character in text where !(character == " " && (squeezed.isEmpty || squeezed.last == " ")) {
            squeezed.append(character)
        }
        while squeezed.last == " " { squeezed.removeLast() }
        return squeezed
    }
}
