import ExtrasBase64
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The one-time-password arithmetic against the RFCs' own test vectors, and what a typed code may look like.
struct TOTPTests {
    /// RFC 4226 Appendix D and RFC 6238 Appendix B use the ASCII secret "12345678901234567890".
    static let rfcSecret = Array("12345678901234567890".utf8)

    /// RFC 4226 Appendix D: HOTP values for counters 0…9 (6 digits).
    @Test func rfc4226AppendixDValues() {
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        let totp = TOTP(secret: Self.rfcSecret)
        #expect((0..<10).map { totp.code(step: Int64($0)) } == expected)
    }

    /// RFC 6238 Appendix B, SHA-1 rows: the 8-digit values' last six digits (6 digits is the same value mod 10^6).
    @Test(arguments: [
        (59.0, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
        (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ])
    func rfc6238AppendixBValues(time: Double, eightDigits: String) {
        let totp = TOTP(secret: Self.rfcSecret)
        let date = Date(timeIntervalSince1970: time)
        #expect(totp.code(step: TOTP.step(at: date)) == String(eightDigits.suffix(6)))
        #expect(totp.matchingStep(String(eightDigits.suffix(6)), at: date) == TOTP.step(at: date))
    }

    @Test func theStepBeforeAndAfterAreAcceptedAndNoOther() {
        let totp = TOTP(secret: Self.rfcSecret)
        let now = Date(timeIntervalSince1970: 1_234_567_890)
        let step = TOTP.step(at: now)
        #expect(totp.matchingStep(totp.code(step: step - 1), at: now) == step - 1)
        #expect(totp.matchingStep(totp.code(step: step + 1), at: now) == step + 1)
        #expect(totp.matchingStep(totp.code(step: step - 2), at: now) == nil)
        #expect(totp.matchingStep(totp.code(step: step + 2), at: now) == nil)
        #expect(totp.matchingStep("", at: now) == nil)
    }

    @Test func typedCodesAreSixDigitsWithSpacesForgiven() {
        #expect(TOTP.normalized("123 456") == "123456")
        #expect(TOTP.normalized(" 123-456 ") == "123456")
        #expect(TOTP.normalized("12345") == nil)
        #expect(TOTP.normalized("1234567") == nil)
        #expect(TOTP.normalized("12345a") == nil)
        #expect(TOTP.normalized("١٢٣٤٥٦") == nil, "Arabic-Indic digits are not ASCII digits")
        #expect(TOTP.normalized("12345\u{FF16}") == nil, "a fullwidth digit")
        #expect(TOTP.normalized("123456\u{301}") == nil, "a combining mark")
    }

    /// The key URI apps scan: base32 of the raw secret (RFC 4648 §10's "foobar" vector), and a label whose
    /// colon, ampersand or `#` cannot add or move a parameter.
    @Test func theKeyURICarriesTheSecretInBase32AndEscapesTheLabel() throws {
        #expect(TOTP(secret: Array("foobar".utf8)).base32Secret == "MZXW6YTBOI")
        let totp = TOTP.random()
        #expect(totp.secret.count == 20)
        let uri = totp.uri(issuer: "Chatter", account: "ada@example.com")
        #expect(uri == "otpauth://totp/Chatter:ada@example.com?secret=\(totp.base32Secret)&issuer=Chatter&algorithm=SHA1&digits=6&period=30")
        #expect(try totp.base32Secret.base32decoded() == totp.secret)
        let hostile = totp.uri(issuer: "Chatter", account: "x&secret=AAAA#:y?")
        let components = try #require(URLComponents(string: hostile))
        #expect(components.queryItems?.filter { $0.name == "secret" }.map(\.value) == [totp.base32Secret])
        #expect(components.fragment == nil)
    }

    @Test func recoveryCodesAreTenDistinctCodesAndTypingIsForgiving() throws {
        let codes = RecoveryCode.generate()
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        for code in codes {
            #expect(code.count == 11 && code.dropFirst(5).first == "-")
            #expect(RecoveryCode.normalized(code) == code.replacingOccurrences(of: "-", with: ""))
            #expect(RecoveryCode.normalized(code.lowercased()) == RecoveryCode.normalized(code))
        }
        #expect(RecoveryCode.normalized("o1ilo-ABCDE") == "01110ABCDE", "Crockford: O is 0, I and L are 1")
        #expect(RecoveryCode.normalized("ABCDE FGHJK") == "ABCDEFGHJK")
        #expect(RecoveryCode.normalized("ABCDE-FGHJ") == nil, "too short")
        #expect(RecoveryCode.normalized("ABCDE-FGHJKM") == nil, "too long")
        #expect(RecoveryCode.normalized("ABCDE-FGHJU") == nil, "U is not in the alphabet")
        #expect(RecoveryCode.normalized("ABCDE-FGHJ\u{212A}") == nil, "KELVIN SIGN is not K")
        #expect(RecoveryCode.normalized(String(repeating: "A", count: 10_000)) == nil)
    }

    @Test func aSealedSecretOpensOnlyUnderItsKeyForItsAccount() throws {
        let box = SecretBox.ephemeral()
        let (ada, bob) = (UUID(), UUID())
        let secret = TOTP.random().secret
        let sealed = try box.seal(secret, for: ada)
        #expect(!(0...(sealed.count - secret.count)).contains { Array(sealed[$0..<$0 + secret.count]) == secret }, "the secret is not in the sealed bytes")
        #expect(box.open(sealed, for: ada) == secret)
        #expect(box.open(sealed, for: bob) == nil, "moved to another account's row")
        #expect(try box.seal(secret, for: ada) != sealed, "a fresh nonce each time")
        #expect(SecretBox.ephemeral().open(sealed, for: ada) == nil, "another key")
        var damaged = sealed
        damaged[damaged.count - 1] ^= 1
        #expect(box.open(damaged, for: ada) == nil)
        #expect(box.recoveryHash("ABCDEFGHJK", for: ada) != box.recoveryHash("ABCDEFGHJK", for: bob))
        #expect(box.recoveryHash("ABCDEFGHJK", for: ada) != SecretBox.ephemeral().recoveryHash("ABCDEFGHJK", for: ada))
        #expect(throws: SecretBox.KeyError.self) { try SecretBox(key: [1, 2, 3]) }
    }

    @Test func theKeyFileIsMadeOnceReadByItsOwnerAloneAndReadBack() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "second-factor-\(UUID()).key").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let key = try SecondFactorKey.ensure(at: path)
        #expect(key.count == 32)
        #expect(try SecondFactorKey.ensure(at: path) == key)
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        try "not hex".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try SecondFactorKey.ensure(at: path) }
        #expect(throws: ConfigurationError.self, "a named file that is missing is an error, not a new key") {
            try SecondFactorKey.ensure(at: path + ".missing", create: false)
        }
        #expect(!FileManager.default.fileExists(atPath: path + ".missing"))
    }

    @Test func instancesStartingAtOnceOnOneDataDirectoryAgreeOnOneKey() async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "second-factor-\(UUID()).key").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let keys = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<16 { group.addTask { try SecondFactorKey.ensure(at: path) } }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
    }
}
