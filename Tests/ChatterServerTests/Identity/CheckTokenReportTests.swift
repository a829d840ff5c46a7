import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// What `chatterd check-token` prints, from the same `inspect` the server runs.
@Suite struct CheckTokenReportTests {
    @Test func acceptedVectorPrintsEveryCheckPassing() async throws {
        let token = try Vectors.text("google/google_a06af0b68a21_1698271431.jwt")
        let aud = try #require(Vectors.claims(of: token)["aud"] as? String)
        let verifier = VectorTokenTests.verifier(jwks: "google/google_a06af0b68a21_1698271431.jwks.json", audiences: [aud], at: 1_698_271_431)
        let text = await verifier.inspect(token).text(keys: "google.jwks.json", checkedAt: Date(timeIntervalSince1970: 1_698_271_431))
        let checkLines = text.split(separator: "\n").filter { $0.hasPrefix("PASS") || $0.hasPrefix("FAIL") || $0.hasPrefix("SKIP") }
        #expect(checkLines.count == TokenCheck.allCases.count)
        #expect(checkLines.allSatisfy { $0.hasPrefix("PASS") })
        #expect(text.hasSuffix("token accepted"))
        #expect(text.contains("\"sub\" : \"114133543908796488499\""))
        #expect(!text.contains(String(token.split(separator: ".")[2])), "the signature is never printed")
    }

    @Test func expiredVectorSaysHowLongAgo() async throws {
        let token = try Vectors.text("google/google_a06af0b68a21_1698271431.jwt")
        let aud = try #require(Vectors.claims(of: token)["aud"] as? String)
        let at = Date(timeIntervalSince1970: 1_698_275_031 + 90)
        let verifier = VectorTokenTests.verifier(jwks: "google/google_a06af0b68a21_1698271431.jwks.json", audiences: [aud], at: at.timeIntervalSince1970)
        let text = await verifier.inspect(token).text(keys: "k", checkedAt: at)
        #expect(text.contains("FAIL  expiry      expired 90 s ago"))
        #expect(text.contains("PASS  signature   signature verifies"))
        #expect(text.hasSuffix("token rejected"))
    }
}
