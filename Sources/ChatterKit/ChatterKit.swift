@_exported import ChatterWire

/// The Chatter client SDK: a session manager over secure storage, a client for chatterd's course and
/// native APIs, and the logic of every sign-in screen. It depends on Foundation and ChatterWire only,
/// so apps do not pull in NIO.
public enum ChatterKit {
    /// This SDK's version; it is in `ChatterAPI.defaultUserAgent`, and the repository's version tag and the top entry of CHANGELOG.md are the same.
    public static let version = "0.3.0"
}
