import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The common-passwords check fails closed: a list that is missing, unreadable or cut short stops chatterd
/// at start instead of leaving the blocklist silently empty.
@Suite struct PasswordRulesTests {
    @Test func theShippedListIsLoadedAndUsed() throws {
        let words = try PasswordRules.bundledBlocklist.get()
        #expect(words.count >= PasswordRules.minimumBlocklistSize)
        #expect(words.contains("password") && words.contains("123456789"))
        #expect(PasswordRules().problem(with: "Password", email: nil) == "This password is too common; choose another.")
        try ServerConfiguration().validate()
    }

    @Test func aMissingUnreadableOrShortListIsRefused() async throws {
        #expect(throws: ConfigurationError.self) { try PasswordRules.blocklist(at: nil) }
        try await withTemporaryDirectory { dir in
            let missing = URL(fileURLWithPath: dir + "/common-passwords.txt")
            #expect(throws: ConfigurationError.self) { try PasswordRules.blocklist(at: missing) }
            try "# a list cut short\npassword\n123456\n".write(to: missing, atomically: true, encoding: .utf8)
            let short = #expect(throws: ConfigurationError.self) { try PasswordRules.blocklist(at: missing) }
            #expect(short?.description.contains("holds 2") == true, "\(String(describing: short))")
        }
    }
}
