// The socket client; see ClientConnection.swift.
