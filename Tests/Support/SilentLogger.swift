import Logging

/// A logger that drops everything.
let silentLogger = Logger(label: "weatherd.tests", factory: { _ in SwiftLogNoOpLogHandler() })
