import ChatterTestSupport
import ChatterWire
import Foundation
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Regressions for what a security review found: each test fails without its fix.
@Suite struct FindingsTests {
    /// An unsigned token whose `exp` lies outside `Int`'s range used to trap the whole process.
    @Test(arguments: [
        "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJleHAiOjFlKzE5fQ.",
        "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJpYXQiOi0xZSsxOSwibmJmIjoxZSsxOTAsImV4cCI6LTFlKzMwMH0.",
    ])
    func outOfRangeNumbersInATokenAreA401(token: String) async throws {
        try await Harness.run { h async throws in
            let course = try await h.post("/adduser", AddUserRequest(clientID: TestIssuer.clientID, idToken: token))
            #expect(course.status == .unauthorized)
            let native = try await h.post(NativePath.google, GoogleSignInRequest(idToken: token, clientID: TestIssuer.clientID))
            #expect(native.status == .unauthorized)
            #expect(try await h.get("/getchatts").status == .ok, "still serving")
        }
    }

    @Test func aSignedTokenWithHugeTimesIsReportedWithoutTrapping() async throws {
        try await Harness.run { h async throws in
            var claims = TestIssuer.claims(now: h.clock.now)
            claims["iat"] = 1e19
            claims["nbf"] = -1e300
            let report = await h.services.google.inspect(try h.issuer.sign(claims), clientID: TestIssuer.clientID)
            #expect(report.firstFailure?.check == .issuedAt)
            #expect(report.firstFailure?.detail.contains("\(Int.max)") == true)
        }
    }

    @Test func bothSpellingsOfGooglesIssuerAreOnePerson() async throws {
        try await Harness.run { h async throws in
            var claims = TestIssuer.claims(subject: "77", now: h.clock.now)
            claims["iss"] = "accounts.google.com"
            let bare = try h.decode(
                SessionResponse.self,
                try await h.post(NativePath.google, GoogleSignInRequest(idToken: try h.issuer.sign(claims), clientID: TestIssuer.clientID)))
            let https = try await h.nativeSignIn(subject: "77")
            #expect(bare.user.id == https.user.id)
            #expect(try await h.store.userCount() == 1)
        }
    }

    @Test func twoSubjectsOfOneIssuerAreTwoPeopleWhateverTheirEmail() async throws {
        try await Harness.run { h async throws in
            let first = try await h.nativeSignIn(subject: "100", email: "shared@example.com")
            let second = try await h.nativeSignIn(subject: "200", email: "shared@example.com")
            #expect(first.user.id != second.user.id)
            #expect(try await h.store.userCount() == 2)
            // Another provider's verified identity with that address still links, to the oldest account.
            let code = try await h.requestCode("shared@example.com")
            let viaCode = try h.decode(
                SessionResponse.self, try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "shared@example.com", code: code)))
            #expect(viaCode.user.id == first.user.id)
        }
    }

    @Test(arguments: [
        String(repeating: "a", count: 60_000) + "@example.com",
        String(repeating: "a", count: 65) + "@example.com",
        "ada\u{0}@example.com", "ada\u{200B}@example.com", "ada@exa\u{200D}mple.com", "ada\u{202E}@example.com",
        "ada@example.com\u{FEFF}x", "ada@-example.com", "ada@example.123", "ada@ex_ample.com", "ada@ab--cd.com", "ada@\u{0301}example.com",
        "ada@example..com", "a@b@example.com", "ada@" + String(repeating: "a", count: 64) + ".com",
    ])
    func unusableAddressesAreRefusedBeforeAnythingIsStored(address: String) async throws {
        try await Harness.run { h async throws in
            let body = String(decoding: try JSONEncoder().encode(EmailCodeRequest(email: address)), as: UTF8.self)
            let response = try await h.post(NativePath.emailCode, json: body)
            #expect(response.status == .badRequest || response.status == .contentTooLarge)
            #expect(h.mail.messages.isEmpty)
            #expect(try await h.store.emailCodes(for: address.lowercased()).isEmpty)
        }
    }

    /// Found by fuzzing: Foundation's NFC on Linux turned U+10041 U+0301 into U+00C1, so normalizing twice
    /// gave two addresses. Whatever comes out normalizes to itself.
    @Test(arguments: ["a\u{10041}\u{301}@example.com", "\u{1D400}\u{301}@example.com", "İ@example.com", "ǅ@example.com", "Ⅻ@example.com"])
    func normalizingIsIdempotent(address: String) {
        if let once = EmailAddress.normalize(address) { #expect(EmailAddress.normalize(once) == once) }
    }

    /// Plain ASCII addresses skip Foundation's NFC; for every ASCII character, and at the length limit,
    /// the shortcut answers exactly as the full Unicode path does.
    @Test func theASCIIShortcutAnswersAsTheUnicodePathDoes() {
        for byte in UInt8(0)..<0x80 {
            let address = "a\(Character(Unicode.Scalar(byte)))b@example.org"
            #expect(EmailAddress.asciiForm(address) == EmailAddress.unicodeForm(address), "byte \(byte)")
        }
        let longest = String(repeating: "a", count: 64) + "@" + String(repeating: "b", count: 185) + ".org"
        for candidate in [longest, longest + "x"] {
            #expect(EmailAddress.asciiForm(candidate) == EmailAddress.unicodeForm(candidate))
        }
        #expect(EmailAddress.asciiForm(longest) == longest)
        #expect(EmailAddress.asciiForm(longest + "x") == nil)
        #expect(EmailAddress.normalize("  Ada@Example.ORG\n") == "ada@example.org")
    }

    @Test func composedAndDecomposedSpellingsAreOneAccount() async throws {
        #expect(EmailAddress.normalize("Jose\u{0301}@Bu\u{0308}cher.example") == "jos\u{E9}@b\u{FC}cher.example")
        #expect(
            EmailAddress.normalize("xn--bcher-kva.example@x.org") == nil || EmailAddress.normalize("ada@xn--bcher-kva.example") == "ada@xn--bcher-kva.example")
        try await Harness.run { h async throws in
            let code = try await h.requestCode("jos\u{E9}@example.com")
            let decomposed = String(decoding: try JSONEncoder().encode(EmailVerifyRequest(email: "jose\u{0301}@example.com", code: code)), as: UTF8.self)
            let response = try await h.post(NativePath.emailVerify, json: decomposed)
            #expect(response.status == .ok, "the decomposed spelling redeems the composed one's code")
            #expect(try h.decode(SessionResponse.self, response).user.email == "jos\u{E9}@example.com")
        }
    }

    /// `/adduser` is the same Google sign-in as `/v1/auth/google`: the token's email is normalized alike
    /// (it once was only lower-cased), so both routes find one account for one address however it is spelled.
    @Test func theCourseSignInNormalizesTheTokensEmailAsTheNativeOneDoes() async throws {
        try await Harness.run { h async throws in
            var claims = TestIssuer.claims(subject: "course-1", now: h.clock.now)
            claims["email"] = "Jose\u{0301}@Example.COM"
            claims["email_verified"] = true
            let response = try await h.post("/adduser", AddUserRequest(clientID: TestIssuer.clientID, idToken: try h.issuer.sign(claims)))
            #expect(response.status == .ok)
            let user = try #require(try await h.store.user(for: IdentityKey(issuer: "https://accounts.google.com", subject: "course-1")))
            #expect(try await h.store.identities(of: user.id).map(\.email) == ["jos\u{E9}@example.com"])
            // The native route, with the composed spelling, signs in to the same account.
            let native = try await h.nativeSignIn(subject: "course-1", email: "jos\u{E9}@example.com")
            #expect(native.user.id == user.id.text && native.user.email == "jos\u{E9}@example.com")
        }
    }

    struct Unencodable: Encodable {
        func encode(to encoder: any Encoder) throws { throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no")) }
    }

    @Test func aResponseThatCannotBeEncodedIsA500NotASuccess() throws {
        let response = JSONResponse.make(Unencodable())
        #expect(response.status == .internalServerError)
    }

    /// A database written before issuers were kept in one spelling: the migration merges the split users.
    @Test func theMigrationMergesUsersSplitByIssuerSpelling() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/old.sqlite"
            let db = try SQLiteConnection.open(path: path)
            _ = try await db.query("PRAGMA foreign_keys = ON")
            for sql in SQLiteMigrations.all[0] { _ = try await db.query(sql) }
            _ = try await db.query("PRAGMA user_version = 1")
            let kept = UUID()
            let split = UUID()
            let alone = UUID()
            for (id, name) in [(kept, "Ada"), (split, "Ada again"), (alone, "Bea")] {
                _ = try await db.query("INSERT INTO users (id, display_name, created_at) VALUES (?, ?, 0)", [.text(id.uuidString), .text(name)])
            }
            for (issuer, subject, user) in [
                ("https://accounts.google.com", "1", kept), ("accounts.google.com", "1", split), ("accounts.google.com", "2", alone),
            ] {
                _ = try await db.query(
                    "INSERT INTO identities (issuer, subject, user_id, created_at) VALUES (?, ?, ?, 0)",
                    [.text(issuer), .text(subject), .text(user.uuidString)])
            }
            _ = try await db.query(
                "INSERT INTO chatts (id, user_id, name, message, created_at) VALUES (?, ?, 'Ada again', 'hi', 0)",
                [.text(UUID().uuidString), .text(split.uuidString)])
            try await db.close()

            let store = try await SQLiteStore.open(path: path)
            #expect(try await store.userCount() == 2)
            #expect(try await store.user(for: IdentityKey(issuer: "https://accounts.google.com", subject: "1"))?.id == kept)
            #expect(try await store.user(for: IdentityKey(issuer: "https://accounts.google.com", subject: "2"))?.id == alone)
            #expect(try await store.allChatts().map(\.userID) == [kept], "the split user's chatts moved to the kept one")
            try await store.close()
        }
    }
}
