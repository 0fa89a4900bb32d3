extension ConfigLoader {
    /// `value` trimmed of surrounding white space and newlines, as a secret; nil when nothing is left
    /// (or there was no value).
    static func secret(_ value: String?) -> Secret? {
        guard let trimmed = value?.trimmingWhitespace(), !trimmed.isEmpty else { return nil }
        return Secret(trimmed)
    }

    /// The systemd credential `name` (`$CREDENTIALS_DIRECTORY/NAME`, from `LoadCredential=`) and its
    /// path; nil without a credentials directory, or when the file is missing, unreadable or blank.
    static func credential(
        _ name: String, environment: [String: String], readFile: (String) -> String?
    ) -> (secret: Secret, path: String)? {
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else { return nil }
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        return secret(readFile(path)).map { ($0, path) }
    }
}
