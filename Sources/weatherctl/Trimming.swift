extension StringProtocol {
    /// The text without the tabs and spaces (Unicode's space separators) at either end, as
    /// Foundation's `trimmingCharacters(in: .whitespaces)` gives it: line breaks stay.
    var trimmingSpaces: String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = Substring(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(Substring(scalars[first...last]))
    }
}
