/// The phase of the latest search (`state.phase`).
public enum SearchPhase: String, Sendable, Hashable {
    case loading, populated, empty, error
}
