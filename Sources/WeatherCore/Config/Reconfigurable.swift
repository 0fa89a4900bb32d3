/// A part of the daemon that takes its own settings from a reloaded configuration.
///
/// At a reload the daemon hands the same ``ConfigChange`` to each of its parts in turn; each looks at
/// its own keys only and applies them at once. A reload is complete when every part has applied it.
public protocol Reconfigurable: Sendable {
    /// Applies this part's keys of `change.new` (a no-op when none of them changed).
    func apply(_ change: ConfigChange) async
}
