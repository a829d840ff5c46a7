// Fuzz target `second-factor`: what a client sends for the second factor. The first byte picks what reads
// the rest:
//   0  a second step's JSON body (`SecondStepRequest`) as the route decodes it, then its code and token as
//      `SecondFactorService` reads them
//   1  a code request's JSON body (`SecondFactorCodeRequest`: confirm, step-up, new codes, turn off)
//   2  a typed code through `TOTP.normalized`, `RecoveryCode.normalized` and `TOTP.matchingStep`
//   3  an account name through the enrolment's key URI (`TOTP.uri`)

import ChatterWire
import Foundation
import FuzzSupport
import Hummingbird
import NIOCore

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer

let totp = TOTP(secret: Array("12345678901234567890".utf8))
let at = Date(timeIntervalSince1970: 1_234_567_890)
let box = SecretBox.ephemeral()
let account = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

func decodeBody<T: Codable & Equatable>(_ type: T.Type, _ body: ByteBuffer) -> T? {
    do {
        let value = try Request.decode(T.self, from: body)
        let again = try? Request.decode(T.self, from: ByteBuffer(bytes: try JSONEncoder().encode(value)))
        invariant(again == value, "\(T.self) changed on a round trip")
        return value
    } catch let error as APIError {
        invariant(error.status == .unprocessableContent, "Request.decode(\(T.self)) answered \(error.status), not 422")
        return nil
    } catch {
        fatalError("fuzz invariant violated: Request.decode(\(T.self)) threw \(Swift.type(of: error)), not an APIError: \(error)")
    }
}

/// A code as the service reads it: at most one reading, each a fixed point, and only six digits can match a step.
func checkCode(_ code: String) {
    let digits = TOTP.normalized(code)
    let recovery = RecoveryCode.normalized(code)
    invariant(digits == nil || recovery == nil, "\(code.debugDescription) reads as both kinds")
    if let digits {
        invariant(digits.utf8.count == 6 && digits.utf8.allSatisfy { (48...57).contains($0) }, "app code \(digits.debugDescription)")
        invariant(TOTP.normalized(digits) == digits, "normalizing an app code again changed it")
    }
    if let recovery {
        invariant(recovery.utf8.count == 10, "recovery code \(recovery.debugDescription)")
        invariant(RecoveryCode.normalized(recovery) == recovery, "normalizing a recovery code again changed it")
        invariant(box.recoveryHash(recovery, for: account).count == 32, "a recovery hash is 32 bytes")
    }
    if let step = totp.matchingStep(code, at: at) {
        invariant(abs(step - TOTP.step(at: at)) <= 1, "a step \(step) too far from now matched")
        invariant(code == totp.code(step: step), "\(code.debugDescription) matched without being the step's code")
    }
}

/// A token decodes to the bytes its characters carry (unused trailing bits, as base64 allows, change
/// nothing: the waiting sign-in is found by the bytes' hash), and those bytes encode and decode back.
func checkToken(_ token: String) {
    guard let bytes = Base64URL.decode(token) else { return }
    invariant(bytes.count == token.utf8.count * 3 / 4, "\(token.utf8.count) characters decoded to \(bytes.count) bytes")
    invariant(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "a token's bytes do not survive encoding")
}

/// The key URI carries exactly one secret and one issuer whatever the account name. (Its QR code is left to
/// the unit tests, which decode it with zbar: drawing one under ASan takes seconds, and its input is this
/// URI, not bytes a client chose.)
func checkEnrolment(_ name: String) {
    let uri = totp.uri(issuer: "Chatter", account: name)
    guard let parts = URLComponents(string: uri) else { fatalError("fuzz invariant violated: the key URI does not parse: \(uri)") }
    invariant(parts.scheme == "otpauth" && parts.host == "totp" && parts.fragment == nil, "the name moved the URI's parts: \(uri)")
    invariant(parts.queryItems?.filter { $0.name == "secret" }.map(\.value) == [totp.base32Secret], "the name added a secret: \(uri)")
    invariant(parts.queryItems?.filter { $0.name == "issuer" }.map(\.value) == ["Chatter"], "the name added an issuer: \(uri)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let text = String(decoding: bytes, as: UTF8.self)
    switch data[0] % 4 {
    case 0:
        guard let request = decodeBody(SecondStepRequest.self, ByteBuffer(bytes: bytes)) else { return 0 }
        checkCode(request.code)
        checkToken(request.token)
    case 1:
        if let request = decodeBody(SecondFactorCodeRequest.self, ByteBuffer(bytes: bytes)) { checkCode(request.code) }
    case 2: checkCode(text)
    default: checkEnrolment(text)
    }
    return 0
}

runLibFuzzer(fuzz)
