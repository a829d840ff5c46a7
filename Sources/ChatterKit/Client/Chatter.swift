import Foundation
import Observation

/// The one object a SwiftUI app holds: the client, the session and where the user stands, observable. Put it
/// in the environment (`.environment(chatter)`), run `run()` from the root view's `.task`, and read
/// `isSignedIn` or `phase` anywhere:
///
/// ```swift
/// @State private var chatter = Chatter(server: URL(string: "https://chatter.example.com")!,
///                                      store: KeychainStore(service: "com.example.app"))
/// var body: some Scene {
///     WindowGroup { RootView().environment(chatter).task { await chatter.run() } }
/// }
/// ```
@MainActor @Observable
public final class Chatter {
    /// Every request and sign-in method (`chatter.client.verifyEmailCode(…)`, `chatter.client.post(…)`).
    @ObservationIgnored public let client: ChatterClient
    /// The phase the UI follows; `phase` and `isSignedIn` read it.
    public let auth: AuthState
    /// Whom `run()` asks, at launch, whether a session from Sign in with Apple still has Apple's authorization;
    /// nil asks no one. On Apple's platforms, Apple itself (`SystemAppleIDCredentialStates`).
    @ObservationIgnored public let appleCredentials: (any AppleIDCredentialStates)?

    /// A `Chatter` over an existing client.
    public init(client: ChatterClient, appleCredentials: (any AppleIDCredentialStates)? = Chatter.systemAppleCredentials) {
        self.client = client
        self.appleCredentials = appleCredentials
        auth = AuthState(sessions: client.sessions)
    }

    /// Apple's answer where there is one.
    public nonisolated static var systemAppleCredentials: (any AppleIDCredentialStates)? {
        #if canImport(AuthenticationServices)
            SystemAppleIDCredentialStates()
        #else
            nil
        #endif
    }

    /// A `Chatter` for the chatterd at `server`, keeping the session in `store`; processes sharing `store` (an app
    /// and its extensions) pass one `coordinator`. `log` receives one line per request (see `ChatterAPI.log`).
    /// Sessions are bound to `deviceKeys`' key (DPoP): by default the Secure Enclave's where there is one. With
    /// `appAttest` (`SystemAppAttest()`), the install's App Attest key vouches for each sign-in.
    public convenience init(
        server: URL, store: any SecretStore, coordinator: (any SessionCoordinator)? = nil, transport: any HTTPTransport = URLSessionTransport(),
        deviceKeys: (any DPoPKeyFactory)? = Chatter.systemDeviceKeys, appAttest: (any AppAttestProvider)? = nil,
        log: (@Sendable (RequestLog) -> Void)? = nil
    ) {
        var api = ChatterAPI(baseURL: server, transport: transport)
        api.log = log
        self.init(client: ChatterClient(api: api, store: store, coordinator: coordinator, deviceKeys: deviceKeys, appAttest: appAttest))
    }

    /// The device's own keys where CryptoKit has them (`SecureEnclaveDPoPKeys`: the Secure Enclave, else a software
    /// key kept ThisDeviceOnly); nil elsewhere, where the app passes its own.
    public nonisolated static var systemDeviceKeys: (any DPoPKeyFactory)? {
        #if canImport(CryptoKit) && canImport(Security)
            SecureEnclaveDPoPKeys()
        #else
            nil
        #endif
    }

    /// Where the user stands: starting, signed out (and why), signed in, expired, or storage unavailable.
    public var phase: AuthState.Phase { auth.phase }
    /// The signed-in session, or nil.
    public var session: AuthSession? { auth.session }
    /// "Am I signed in?" as a value: a usable session exists (an access token that lapsed refreshes by itself).
    public var isSignedIn: Bool { auth.isSignedIn }

    /// Reads the stored session and follows every change until the calling task ends. A session from Sign in with
    /// Apple whose credential Apple reports revoked is signed out (`SessionManager.checkAppleCredential(with:)`).
    public func run() async {
        await run(unlockingWith: nil)
    }

    /// The same, behind `gate`: a stored session is read once the gate is unlocked (`AuthState.run(unlockingWith:)`).
    public func run(unlockingWith gate: BiometricGate?) async {
        async let following: Void = auth.run(unlockingWith: gate)
        if let appleCredentials { await client.sessions.checkAppleCredential(with: appleCredentials) }
        await following
    }

    /// For the app coming to the foreground: refreshes a lapsed access token before the first request needs it.
    public func appBecameActive() async { await auth.appBecameActive() }

    /// Signs this device out (every device with `all`); see `SessionManager.signOut(all:)`.
    @discardableResult
    public func signOut(all: Bool = false) async throws -> Bool {
        try await client.sessions.signOut(all: all)
    }
}
