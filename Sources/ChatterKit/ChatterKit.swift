@_exported import ChatterWire

/// The Chatter client SDK: a session manager over secure storage, a client for chatterd's course and
/// native APIs, and the logic of every sign-in screen. It depends on Foundation and ChatterWire only,
/// so apps do not pull in NIO.
public enum ChatterKit {
    /// This SDK's version; the default `ChatterAPI.userAgent` is `ChatterKit/` followed by it.
    public static let version = "0.2.0"
}
