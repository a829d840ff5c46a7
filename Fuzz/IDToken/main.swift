// Fuzz target `id-token`: arbitrary bytes as an ID token, through decoding and the whole verification
// (`IDTokenVerifier.verify` as the routes call it, and `inspect` both ways) against a fixed Google key set,
// with the clock pinned inside the Google vector's validity.
//
// Input: the token's bytes. An input that starts with a 0x00 byte is instead `0x00 header-JSON 0x00
// payload-JSON`: the harness base64url-encodes the two and appends the vector's real signature, so the
// fuzzer can work on the JSON that the checks after decoding see, rather than on its base64.

import Foundation
import FuzzSupport

@testable import ChatterCore
@testable import ChatterDomain

enum Fixture {
    /// The checkout's root, three levels above this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let vectors = root.appendingPathComponent("Tests/ChatterServerTests/Fixtures/vectors/google")
    static let jwksPath = vectors.appendingPathComponent("google_a06af0b68a21_1698271431.jwks.json").path
    static let tokenPath = vectors.appendingPathComponent("google_a06af0b68a21_1698271431.jwt").path

    // The vector's own claims: iat 1698271431, exp 1698275031.
    static let audience = "410591493887-iehnnhojmq709f1njikgv9atbobceoq6.apps.googleusercontent.com"
    static let nonce = "KKPFuIGpdWsQCokkMMxMJCwHsTE"
    static let instant = Date(timeIntervalSince1970: 1_698_271_431 + 60)

    /// One verifier for the whole run, as the server keeps one: its key cache is fetched once, and with the
    /// clock pinned it is never refetched.
    static let verifier: IDTokenVerifier = {
        let clock: @Sendable () -> Date = { instant }
        let keys = JWKSCache(source: FileJWKSSource(path: jwksPath), algorithms: ["RS256"], now: clock)
        return IDTokenVerifier(provider: .google(clientIDs: [audience], nonce: .raw), keys: keys, now: clock)
    }()

    static let token: String = {
        guard let text = try? String(contentsOfFile: tokenPath, encoding: .utf8) else {
            fatalError("cannot read the vector token at \(tokenPath)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    static let signature: Substring = token.split(separator: ".", omittingEmptySubsequences: false).last ?? ""
}

/// What one input produced on each path that reads a token.
struct Outcome: Sendable {
    /// `verify`, as `/adduser` and `/v1/auth/google` call it.
    var verified: Result<VerifiedIdentity, TokenRejected>
    /// `inspect` with the same arguments, stopping at the signature (what `verify` decides on) …
    var server: TokenReport
    /// … and running every check (what `chatterd check-token` shows).
    var full: TokenReport
    /// `chatterd check-token`'s defaults: no client ID, no nonce.
    var checkToken: TokenReport
    /// The Apple notification route's call: no subject required.
    var noSubject: Result<VerifiedIdentity, TokenRejected>
}

func examine(_ token: String) -> Outcome {
    blocking {
        let verifier = Fixture.verifier
        let nonce = NonceExpectation.raw(Fixture.nonce)
        let verified: Result<VerifiedIdentity, TokenRejected>
        do throws(TokenRejected) {
            verified = .success(try await verifier.verify(token, clientID: Fixture.audience, nonce: nonce))
        } catch {
            verified = .failure(error)
        }
        let server = await verifier.inspect(token, clientID: Fixture.audience, nonce: nonce, stopAtSignature: true)
        let full = await verifier.inspect(token, clientID: Fixture.audience, nonce: nonce, stopAtSignature: false)
        let checkToken = await verifier.inspect(token)
        let noSubject: Result<VerifiedIdentity, TokenRejected>
        do throws(TokenRejected) {
            noSubject = .success(try await verifier.verify(token, requireSubject: false))
        } catch {
            noSubject = .failure(error)
        }
        return Outcome(verified: verified, server: server, full: full, checkToken: checkToken, noSubject: noSubject)
    }
}

/// What every report promises, whatever the token.
func checkReport(_ report: TokenReport, _ name: String) {
    invariant(report.results.map(\.check) == TokenCheck.allCases, "\(name): checks reported \(report.results.map(\.check.name))")
    invariant(
        (report.identity != nil) == report.results.allSatisfy { $0.outcome == .pass },
        "\(name): identity is \(report.identity == nil ? "nil" : "set") but results are \(report.results)")
    if report.identity != nil {
        invariant(report.results.contains { $0.check == .signature && $0.outcome == .pass }, "\(name): accepted without a verified signature")
    }
    _ = report.text(keys: Fixture.jwksPath, checkedAt: Fixture.instant)
}

func checkVerdict(_ verdict: Result<VerifiedIdentity, TokenRejected>, matches report: TokenReport, _ name: String) {
    switch verdict {
    case .success(let identity):
        invariant(report.identity == identity, "\(name): verify accepted \(identity), inspect says \(String(describing: report.identity))")
    case .failure(let rejected):
        invariant(report.identity == nil, "\(name): verify rejected (\(rejected.check)) what inspect accepted")
        invariant(
            report.firstFailure?.check == rejected.check,
            "\(name): verify rejected for \(rejected.check), inspect's first failure is \(String(describing: report.firstFailure))")
    }
}

func base64URL(_ bytes: ArraySlice<UInt8>) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    let token: String
    if input.first == 0 {
        let rest = input.dropFirst()
        let split = rest.firstIndex(of: 0) ?? rest.endIndex
        let payload = split < rest.endIndex ? rest[(split + 1)...] : []
        token = base64URL(rest[..<split]) + "." + base64URL(payload) + "." + Fixture.signature
    } else {
        token = String(decoding: input, as: UTF8.self)
    }

    let outcome = examine(token)
    checkReport(outcome.server, "server")
    checkReport(outcome.full, "full")
    checkReport(outcome.checkToken, "check-token")
    checkVerdict(outcome.verified, matches: outcome.server, "verify")
    // Stopping at the signature must change nothing up to it, and nothing at all once it verified.
    let upToSignature = TokenCheck.allCases.firstIndex(of: .signature)! + 1
    invariant(
        Array(outcome.server.results.prefix(upToSignature)) == Array(outcome.full.results.prefix(upToSignature)),
        "stopAtSignature changed the checks before it: \(outcome.server.results) vs \(outcome.full.results)")
    invariant(
        outcome.server.identity == outcome.full.identity,
        "stopAtSignature changed the verdict: \(String(describing: outcome.server.identity)) vs \(String(describing: outcome.full.identity))")
    if case .success(let identity) = outcome.noSubject {
        invariant(
            identity.issuer == "https://accounts.google.com" || identity.issuer == "accounts.google.com",
            "accepted an issuer that is not Google's: \(identity.issuer)")
    }
    return 0
}

// The harness must reach a full pass: the vector verifies at the pinned instant, or nothing below means much.
switch examine(Fixture.token).verified {
case .success: break
case .failure(let rejected): fatalError("harness broken: the Google vector does not verify (\(rejected.check): \(rejected.reason))")
}
runLibFuzzer(fuzz)
