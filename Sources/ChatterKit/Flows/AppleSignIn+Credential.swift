import Foundation

extension NameParts {
    /// The parts of a name Apple's credential carries (`ASAuthorizationAppleIDCredential.fullName`);
    /// `nil` when it carries none, as on every sign-in after the first.
    public init?(_ components: PersonNameComponents?) {
        guard let components else { return nil }
        let parts = NameParts(
            givenName: Self.text(components.givenName), familyName: Self.text(components.familyName),
            middleName: Self.text(components.middleName), nickname: Self.text(components.nickname),
            namePrefix: Self.text(components.namePrefix), nameSuffix: Self.text(components.nameSuffix))
        guard parts != NameParts() else { return nil }
        self = parts
    }

    private static func text(_ value: String?) -> String? {
        let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return trimmed.isEmpty ? nil : trimmed
    }
}

/// What Apple's sheet returns that chatterd needs, as `ASAuthorizationAppleIDCredential` carries it.
public struct AppleCredential: Sendable, Equatable {
    /// The identity token, UTF-8 JWT bytes.
    public var identityToken: Data?
    /// The user's name: only on the first sign-in to this app.
    public var fullName: PersonNameComponents?
    /// The user's email (possibly a private relay address): only on the first sign-in.
    public var email: String?
    /// A short-lived, single-use code chatterd exchanges at Apple for the token it revokes when the account is
    /// deleted. UTF-8 bytes.
    public var authorizationCode: Data?
    /// The Apple ID's stable identifier for this app (the identity token's `sub`): what the launch check asks
    /// Apple about.
    public var user: String?

    /// A credential with Apple's fields.
    public init(identityToken: Data?, fullName: PersonNameComponents?, email: String?, authorizationCode: Data? = nil, user: String? = nil) {
        self.identityToken = identityToken
        self.fullName = fullName
        self.email = email
        self.authorizationCode = authorizationCode
        self.user = user
    }
}

extension AppleSignInFlow {
    /// Apple's sheet finished, either way: sends a credential, or shows why there is none (nothing for a
    /// cancel, which `isCancellation` recognises among the platform's errors).
    @discardableResult
    public func complete(_ result: Result<AppleCredential, any Error>, isCancellation: (any Error) -> Bool) async -> Bool {
        switch result {
        case .success(let credential):
            return await complete(
                identityToken: credential.identityToken, fullName: credential.fullName, email: credential.email,
                authorizationCode: credential.authorizationCode, user: credential.user)
        case .failure(let error):
            failed(error, cancelled: isCancellation(error))
            return false
        }
    }

    /// Apple's sheet succeeded: takes the credential's fields as Apple gives them (the token as UTF-8
    /// data, the name as components) and sends them.
    @discardableResult
    public func complete(
        identityToken: Data?, fullName: PersonNameComponents?, email: String?, authorizationCode: Data? = nil, user: String? = nil
    ) async -> Bool {
        guard let identityToken, let token = String(data: identityToken, encoding: .utf8), !token.isEmpty else {
            fail(message: "Apple did not return an identity token. Try again.")
            return false
        }
        let address = email?.trimmingCharacters(in: .whitespacesAndNewlines)
        let code = authorizationCode.flatMap { String(data: $0, encoding: .utf8) }
        return await complete(
            identityToken: token, name: NameParts(fullName), email: address?.isEmpty == false ? address : nil,
            authorizationCode: code?.isEmpty == false ? code : nil, user: user?.isEmpty == false ? user : nil)
    }

    /// Apple's sheet failed. A cancel (the user closed it) shows nothing; anything else shows a banner.
    public func failed(_ error: any Error, cancelled: Bool) {
        fail(message: cancelled ? nil : "Sign in with Apple failed: \(ChatterError.describe(error))")
    }
}
