import Foundation

/// Where the SDK keeps secrets. "Nothing stored" is `nil` from `read`, never an error, so a
/// caller can tell it apart from storage that cannot be reached right now: only the first one means
/// "signed out".
public protocol SecretStore: Sendable {
    /// The data stored under `key`, or nil when there is none.
    func read(_ key: String) async throws(StorageError) -> Data?
    /// Stores `data` under `key`, replacing what was there. Either the new value is stored or the old
    /// one is kept: a failed write never leaves a half-written value.
    func write(_ data: Data, for key: String) async throws(StorageError)
    /// Removes `key`; removing what is not there succeeds.
    func delete(_ key: String) async throws(StorageError)
    /// Throws `.unavailable` when stored items cannot be read right now, without reading one (so nothing
    /// asks for Face ID). A store that can always read, or that says so on each read, throws nothing.
    func checkAvailable() async throws(StorageError)
}

extension SecretStore {
    /// Throws nothing: the default for stores whose reads report unavailable storage themselves.
    public func checkAvailable() async throws(StorageError) {}
}

/// Why secure storage failed. None of these signs the user out; only `.unavailable` is worth retrying unchanged.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Cannot be reached right now (device locked, keyring locked or not running). Retrying later may work;
    /// the user stays signed in.
    case unavailable(String)
    /// This build cannot use the store at all (no keychain entitlement, a wrong access group): retrying never
    /// helps; a developer must fix the app's signing or configuration.
    case misconfigured(String)
    /// The user or the system refused access (authentication failed or was cancelled).
    case denied(String)
    /// Protection the caller asked for cannot be set up, so nothing was stored (failing closed).
    case protectionUnavailable(String)
    /// Anything else, with what the store reported.
    case failed(String)

    /// A sentence for a person, with what the store reported.
    public var description: String {
        switch self {
        case .unavailable(let text): return "Secure storage is unavailable right now: \(text)"
        case .misconfigured(let text): return "Secure storage is not set up for this app: \(text)"
        case .denied(let text): return "Access to secure storage was denied: \(text)"
        case .protectionUnavailable(let text): return "Secure storage cannot protect the item as asked: \(text)"
        case .failed(let text): return "Secure storage failed: \(text)"
        }
    }
}

/// The keys ChatterKit stores under.
public enum StoreKey {
    /// The signed-in session: its tokens and expiry dates, as JSON.
    public static let session = "session"
    /// A digest of the stored session's tokens, kept beside it without Face ID protection: a process sharing the
    /// store tells from it, without a prompt, whether the session changed (a refresh in its turn reads the
    /// protected session only then), and the launch whether there is one to unlock. It reveals no token.
    public static let sessionStamp = "session.stamp"
    /// A refresh under way in one of the processes sharing the store (`RefreshLease`), unprotected: the others wait
    /// for what it stores. It holds no token.
    public static let refreshLease = "session.refresh-lease"
    /// The signed-in email, kept so the form can fill it in on the next launch (F2). Never the password.
    public static let email = "email"
    /// Apple's name and email from a first sign-in, kept until chatterd confirms the registration (F4).
    public static let pendingAppleRegistration = "apple.pending-registration"
    /// The Apple ID this device's session signed in with, and the session's id: what the launch check asks Apple
    /// about (`SessionManager.checkAppleCredential(with:)`).
    public static let appleSignIn = "apple.sign-in"
    /// This install's DPoP key (`DPoPKeyFactory`): a Secure Enclave key's handle, which only this device's enclave can
    /// use, or a software key. Unprotected, so a refresh in an extension needs no Face ID; it outlives sign-out, as
    /// the install's key.
    public static let dpopKey = "dpop.key"
    /// This install's App Attest key identifier and whether chatterd kept it (`AppAttestation`). The key itself never
    /// leaves the Secure Enclave.
    public static let appAttestKey = "app-attest.key"
    /// The device token chatterd issued for `email`: proof that this device signed in to the address before,
    /// which gives its password attempts and code requests an allowance no one else can use up. It outlives
    /// sign-out on purpose.
    public static func device(_ email: String) -> String {
        "device." + email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().precomposedStringWithCanonicalMapping
    }
}
