import ChatterCore
import Foundation

/// The apps that share chatterd's passkeys, and the two files that tell the platforms so: Apple's
/// `apple-app-site-association` (`webcredentials`) and Android's Digital Asset Links `assetlinks.json`
/// (`get_login_creds`). Each is built once from the configuration and served as is.
public struct AppAssociation: Sendable, Equatable {
    /// An Android app: its package and the SHA-256 fingerprints of the certificates that sign it.
    public struct AndroidApp: Sendable, Equatable {
        public var package: String
        public var fingerprints: [[UInt8]]

        /// Assertions made in the app carry this origin instead of a web one (WebAuthn's Android
        /// client data): one per signing certificate.
        public var origins: [String] { fingerprints.map { "android:apk-key-hash:" + Base64URL.encode($0) } }
    }

    /// `TEAMID.bundle.id` of each iOS, iPadOS or macOS app.
    public var appleAppIDs: [String] = []
    public var androidApps: [AndroidApp] = []

    public init(appleAppIDs: [String] = [], androidApps: [AndroidApp] = []) {
        self.appleAppIDs = appleAppIDs
        self.androidApps = androidApps
    }

    /// From the settings' text: `TEAMID.bundle.id` entries, and `package:FINGERPRINT` entries (a
    /// package named twice keeps both fingerprints, as while a signing key is rotated).
    public init(appleAppIDs: [String], androidApps entries: [String]) throws {
        for id in appleAppIDs where !Self.isAppleAppID(id) {
            throw ConfigurationError("--apple-app-id \(id) is not TEAMID.bundle.id (a 10-character team ID, then the bundle ID)")
        }
        var apps: [AndroidApp] = []
        for entry in entries {
            let parts = entry.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, Self.isAndroidPackage(parts[0]), let fingerprint = Self.fingerprint(parts[1]) else {
                throw ConfigurationError("--android-app \(entry) is not PACKAGE:SHA256 (com.example.app:AB:CD:… with 32 bytes of hex)")
            }
            if let index = apps.firstIndex(where: { $0.package == parts[0] }) {
                if !apps[index].fingerprints.contains(fingerprint) { apps[index].fingerprints.append(fingerprint) }
            } else {
                apps.append(AndroidApp(package: parts[0], fingerprints: [fingerprint]))
            }
        }
        self.init(appleAppIDs: appleAppIDs, androidApps: apps)
    }

    /// Apple's file: the apps that may use this domain's passkeys and passwords. Apple's CDN fetches it
    /// from `/.well-known/apple-app-site-association` as JSON, without redirects.
    public var appleDocument: Data? {
        guard !appleAppIDs.isEmpty else { return nil }
        return Self.json(["webcredentials": ["apps": appleAppIDs]])
    }

    /// Android's file: each app and its certificates, for sign-in credentials.
    public var androidDocument: Data? {
        guard !androidApps.isEmpty else { return nil }
        return Self.json(
            androidApps.map { app in
                [
                    "relation": ["delegate_permission/common.get_login_creds"],
                    "target": [
                        "namespace": "android_app", "package_name": app.package,
                        "sha256_cert_fingerprints": app.fingerprints.map { $0.map { String(format: "%02X", $0) }.joined(separator: ":") },
                    ] as [String: Any],
                ] as [String: Any]
            })
    }

    private static func json(_ value: Any) -> Data? {
        // fail-closed: a document that does not serialize is nil: its well-known route answers 404, no app is vouched for
        try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// A team ID is 10 upper-case letters and digits; a bundle ID, letters, digits, `-` and `.`.
    package static func isAppleAppID(_ id: String) -> Bool {
        let parts = id.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 10, parts[1].count <= 155 else { return false }
        let team = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let bundle = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
        return parts[0].allSatisfy(team.contains) && parts[1].allSatisfy(bundle.contains) && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
    }

    /// Java-style: two or more segments, each a letter then letters, digits or `_`.
    package static func isAndroidPackage(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        let letters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let rest = letters.union("0123456789_")
        return name.count <= 255 && segments.count >= 2
            && segments.allSatisfy { segment in segment.first.map(letters.contains) == true && segment.allSatisfy(rest.contains) }
    }

    /// 32 bytes from `AB:CD:…` or plain hex, any case.
    package static func fingerprint(_ text: String) -> [UInt8]? {
        guard let bytes = Hex.decode(text.replacingOccurrences(of: ":", with: "")), bytes.count == 32 else { return nil }
        return bytes
    }
}
