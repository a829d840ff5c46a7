// Fuzz target `request-bodies`: arbitrary bytes as the JSON body of every route that decodes one, through
// the server's own `Request.decode` (which turns decoding errors into a 422 naming the field), then
// `EmailAddress.normalize` on the addresses the body carries and the session-token key's checks on a
// refresh token, as the routes do next.
//
// Input: one byte that chooses the body type (modulo the number of types), then the body.

import ChatterWire
import Foundation
import FuzzSupport
import Hummingbird
import NIOCore

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer

/// Decodes `body` as `T` the way the routes do. A decoded value must survive the trip a client's request
/// makes: ChatterKit encodes these same wire types, so encoding and decoding again must give it back.
func decode<T: Codable & Equatable>(_ type: T.Type, _ body: ByteBuffer) -> T? {
    let value: T
    do {
        value = try Request.decode(T.self, from: body)
    } catch let error as APIError {
        invariant(error.status == .unprocessableContent, "Request.decode(\(T.self)) answered \(error.status), not 422")
        _ = JSONResponse.make(error.body, status: error.status)
        return nil
    } catch {
        // Request.decode promises an APIError (a 422) for every body it cannot decode; anything else is a 500.
        fatalError("fuzz invariant violated: Request.decode(\(T.self)) threw \(Swift.type(of: error)), not an APIError: \(error)")
    }
    let encoded: Data
    do {
        encoded = try JSONEncoder().encode(value)
    } catch {
        fatalError("fuzz invariant violated: a decoded \(T.self) does not encode: \(error)")
    }
    let again = try? Request.decode(T.self, from: ByteBuffer(bytes: encoded))
    invariant(again == value, "\(T.self) changed on a round trip: \(value) -> \(String(decoding: encoded, as: UTF8.self)) -> \(String(describing: again))")
    return value
}

/// What the refresh route does with the token before any lookup: its tag, and the session it names.
let tokenKey = SessionTokenKey(key: Array(repeating: 7, count: 32), untaggedUntil: .distantPast)

func checkRefreshToken(_ token: String?) {
    guard let token else { return }
    if let session = tokenKey.session(namedBy: token, as: .refresh) {
        invariant(token.utf8.count == 64, "a \(token.utf8.count)-byte token named session \(session)")
    }
    if tokenKey.isTagged(token) { invariant(token.utf8.count == 43, "a \(token.utf8.count)-byte token passed as tagged") }
}

func normalize(_ email: String?) {
    guard let email, let normalized = EmailAddress.normalize(email) else { return }
    invariant(EmailAddress.normalize(normalized) == normalized, "normalize is not idempotent on \(email.debugDescription)")
}

/// Every body a route decodes, in a fixed order (the selector byte's meaning).
let bodies: [@Sendable (ByteBuffer) -> Void] = [
    { _ = decode(PostChattRequest.self, $0) },
    { _ = decode(AddUserRequest.self, $0) },
    { _ = decode(PostAuthRequest.self, $0) },
    { _ = decode(GoogleSignInRequest.self, $0) },
    { normalize(decode(AppleSignInRequest.self, $0)?.email) },
    { normalize(decode(EmailCodeRequest.self, $0)?.email) },
    { normalize(decode(EmailVerifyRequest.self, $0)?.email) },
    { normalize(decode(PasswordSignUpRequest.self, $0)?.email) },
    { normalize(decode(PasswordSignInRequest.self, $0)?.email) },
    { normalize(decode(PasswordResetRequest.self, $0)?.email) },
    { _ = decode(PasswordChangeRequest.self, $0) },
    { checkRefreshToken(decode(RefreshRequest.self, $0)?.refreshToken) },
    { _ = decode(SignOutRequest.self, $0) },
    { _ = decode(NewChattRequest.self, $0) },
    // Apple's server-to-server notification: a server-side type, decoded only.
    { _ = try? Request.decode(AppleNotificationRoutes.Notification.self, from: $0) },
    { normalize(decode(PasskeySignUpOptionsRequest.self, $0)?.email) },
    { checkPasskeyName(decode(PasskeyRegistrationRequest.self, $0)?.name) },
    { _ = decode(PasskeySignInRequest.self, $0) },
    { checkPasskeyName(decode(PasskeyRenameRequest.self, $0)?.name) },
    { _ = decode(AppAttestKeyRequest.self, $0) },
]

/// A passkey's name as the service keeps it: cleaned, 1 to 64 characters, and unchanged by cleaning again.
func checkPasskeyName(_ raw: String?) {
    guard let raw, let name = try? PasskeyService.validName(raw) else { return }
    invariant((1...PasskeyService.maximumNameLength).contains(name.count), "a kept name of \(name.count) characters")
    invariant((try? PasskeyService.validName(name)) == name, "cleaning \(raw.debugDescription) twice changes it")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let body = ByteBuffer(bytes: UnsafeBufferPointer(start: data + 1, count: size - 1))
    bodies[Int(data[0]) % bodies.count](body)
    return 0
}

runLibFuzzer(fuzz)
