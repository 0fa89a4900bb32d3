/// A configuration that cannot be used (weatherd exits 78, EX_CONFIG). Holds every problem found.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The problems, in the order they were found (never empty when thrown by ``ConfigLoader``).
    public var problems: [ConfigProblem]

    /// An error made of these problems.
    public init(problems: [ConfigProblem]) {
        self.problems = problems
    }

    /// An error made of one problem.
    public init(_ problem: ConfigProblem) {
        self.problems = [problem]
    }

    /// One problem per line, without a trailing newline.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
