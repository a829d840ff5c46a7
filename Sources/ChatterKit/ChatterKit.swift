@_exported import ChatterWire

/// The Chatter client SDK. It depends on Foundation and ChatterWire only, so apps do not pull in NIO;
/// the session manager, secure storage and sign-in view models arrive with the SDK issue.
public enum ChatterKit {
    public static let version = "0.1.0"
}
