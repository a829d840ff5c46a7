@_exported import Foundation
import SwiftUI
import UIKit

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

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationappleidprovider
/// `getCredentialState(forUserID:completion:)`, imported into Swift as `credentialState(forUserID:) async throws`;
/// `CredentialState` is an `Int` enum of `revoked` (0), `authorized` (1), `notFound` (2) and `transferred` (3),
/// open to later cases (so callers need `@unknown default`).
open class ASAuthorizationAppleIDProvider: NSObject {
    public enum CredentialState: Int, Sendable {
        case revoked = 0
        case authorized = 1
        case notFound = 2
        case transferred = 3
    }

    public override init() {}

    open func getCredentialState(forUserID userID: String, completion: @escaping @Sendable (CredentialState, (any Error)?) -> Void) {
        completion(.notFound, nil)
    }

    open func credentialState(forUserID userID: String) async throws -> CredentialState { .notFound }
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
        /// iOS 18, macOS 15: the device holds a credential the request excluded
        /// (https://developer.apple.com/documentation/authenticationservices/asauthorizationerror-swift.struct/code/matchedexcludedcredential).
        @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
        case matchedExcludedCredential = 1006
    }

    public var code: Code
    /// As every error struct bridged from an NSError domain is made.
    public init(_ code: Code, userInfo: [String: Any] = [:]) { self.code = code }
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

// MARK: Passkeys

/// https://developer.apple.com/documentation/authenticationservices/aspresentationanchor (UIWindow on
/// iOS and visionOS, NSWindow on macOS; both main-actor classes).
public typealias ASPresentationAnchor = UIWindow

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationrequest
open class ASAuthorizationRequest: NSObject {}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialuserverificationpreference
/// (an extensible string enumeration: `init(rawValue:)` does not fail).
public struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: Hashable, Sendable, RawRepresentable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let required = Self(rawValue: "required")
    public static let preferred = Self(rawValue: "preferred")
    public static let discouraged = Self(rawValue: "discouraged")
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialdescriptor
open class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject {
    public init(credentialID: Data) {}
    open var credentialID: Data { Data() }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider
@available(iOS 15.0, macOS 12.0, *)
open class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject {
    public init(relyingPartyIdentifier: String) {}
    open var relyingPartyIdentifier: String { "" }

    open func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data)
        -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest
    { fatalError() }

    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest { fatalError() }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistrationrequest
/// (`displayName` and `userVerificationPreference` from ASAuthorizationPublicKeyCredentialRegistrationRequest).
open class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    open var displayName: String?
    open var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference = .preferred
    /// Passkeys only from iOS 17.4 and macOS 14.4 (Apple's availability for this property).
    @available(iOS 17.4, macOS 14.4, visionOS 1.1, *)
    open var excludedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] {
        get { [] }
        set {}
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertionrequest
open class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    open var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
    open var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference = .preferred
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistration
open class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationCredential {
    open var rawAttestationObject: Data? { nil }
    open var rawClientDataJSON: Data { Data() }
    open var credentialID: Data { Data() }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertion
/// (implicitly unwrapped in Swift, as Apple's declarations are).
open class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationCredential {
    open var rawAuthenticatorData: Data! { nil }
    open var signature: Data! { nil }
    open var userID: Data! { nil }
    open var rawClientDataJSON: Data { Data() }
    open var credentialID: Data { Data() }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate
/// (optional Objective-C methods: defaults stand for "not implemented"). AuthenticationServices calls
/// them on the main thread; the stand-in isolates them to the main actor, which nonisolated witnesses
/// satisfy as well as isolated ones.
@MainActor
public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

extension ASAuthorizationControllerDelegate {
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {}
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {}
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerpresentationcontextproviding
@MainActor
public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller: the
/// delegate and the presentation context provider are weak references.
open class ASAuthorizationController: NSObject {
    public init(authorizationRequests: [ASAuthorizationRequest]) {}
    open var authorizationRequests: [ASAuthorizationRequest] { [] }
    open weak var delegate: (any ASAuthorizationControllerDelegate)?
    open weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?
    open func performRequests() { performing = true }
    /// iOS, iPadOS and visionOS 16 or later only (not macOS).
    @available(iOS 16.0, visionOS 1.0, *)
    @available(macOS, unavailable)
    open func performAutoFillAssistedRequests() { performing = true }
    /// Ends a request under way: its delegate hears `authorizationController(controller:didCompleteWithError:)` with
    /// `ASAuthorizationError.canceled`, as the page says
    /// (https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/cancel()).
    @available(iOS 16.0, macOS 13.0, *)
    @MainActor open func cancel() {
        guard performing else { return }
        performing = false
        delegate?.authorizationController(controller: self, didCompleteWithError: ASAuthorizationError(.canceled))
    }
    private var performing = false
}
