@_exported import Foundation
import SwiftUI

public protocol ASAuthorizationCredential: NSObjectProtocol {}

open class ASAuthorization: NSObject {
    public struct Scope: Hashable, Sendable, RawRepresentable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let fullName = Scope(rawValue: "full_name")
        public static let email = Scope(rawValue: "email")
    }

    open var credential: any ASAuthorizationCredential { fatalError() }
}

open class ASAuthorizationAppleIDCredential: NSObject, ASAuthorizationCredential {
    open var user: String { "" }
    open var identityToken: Data? { nil }
    open var authorizationCode: Data? { nil }
    open var fullName: PersonNameComponents? { nil }
    open var email: String? { nil }
}

open class ASAuthorizationAppleIDRequest: NSObject {
    open var requestedScopes: [ASAuthorization.Scope]?
    open var nonce: String?
    open var state: String?
}

public struct ASAuthorizationError: Error, Sendable {
    public enum Code: Int, Sendable {
        case unknown = 1000
        case canceled = 1001
        case invalidResponse = 1002
        case notHandled = 1003
        case failed = 1004
        case notInteractive = 1005
    }

    public var code: Code
}

/// SwiftUI's Sign in with Apple button (AuthenticationServices with SwiftUI).
public struct SignInWithAppleButton: View {
    public enum Label: Sendable {
        case signIn, `continue`, signUp
    }

    public enum Style: Sendable {
        case black, white, whiteOutline
    }

    public init(
        _ label: Label = .signIn, onRequest: @escaping (ASAuthorizationAppleIDRequest) -> Void,
        onCompletion: @escaping (Result<ASAuthorization, any Error>) -> Void
    ) {}

    public var body: Never { fatalError() }
}

extension View {
    public func signInWithAppleButtonStyle(_ style: SignInWithAppleButton.Style) -> some View { _Modified(self) }
}
