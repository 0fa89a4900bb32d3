/// The version of weatherd.
public enum WeatherdVersion {
    public static let current = "0.1.0"
}
