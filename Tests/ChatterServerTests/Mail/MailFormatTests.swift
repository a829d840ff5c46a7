import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

@Suite struct MailFormatTests {
    static let date = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func nonASCIIBodyAndSubjectAreEncodedAndReadBack() throws {
        let message = MailMessage(
            from: "no-reply@chatter.test", to: "bo@example.com", subject: "Dein Anmeldecode für Chatter – gültig 10 Minuten ✅",
            body: "Grüße! Dein Code: 654321\n= not a soft break, trailing space \n" + String(repeating: "x", count: 100) + "\n")
        let mail = try ParsedMail(try message.rfc5322(date: Self.date, messageID: "<1@chatter.test>"))
        #expect(mail.headers["subject"] == message.subject)
        #expect(mail.headers["content-transfer-encoding"] == "quoted-printable")
        #expect(mail.body.contains("Gr=C3=BC=C3=9Fe! Dein Code: 654321\r\n"))
        #expect(mail.body.contains("=3D not a soft break, trailing space=20\r\n"))
        #expect(mail.body.split(separator: "\r\n").allSatisfy { $0.count <= 76 })
        #expect(mail.body.replacingOccurrences(of: "=\r\n", with: "").contains(String(repeating: "x", count: 100)))
    }

    @Test func linesEndInCRLFWhateverTheInputUsed() throws {
        let message = MailMessage(from: "a@chatter.test", to: "b@example.com", subject: "s", body: "one\rtwo\r\nthree\nfour")
        let mail = try ParsedMail(try message.rfc5322(date: Self.date, messageID: "<1@chatter.test>"))
        #expect(mail.body == "one\r\ntwo\r\nthree\r\nfour\r\n")
    }

    @Test(arguments: [
        "", "ada", "ada@", "@example.com", "a@b@c", "ada @example.com", "<ada@example.com", "Ada <ada @example.com>",
        "Ada\r\nBcc: eve@example.net <ada@example.com>", "ada@example.com\r\n", "adä@example.com",
    ])
    func refusesAddressesThatAreNotPlainLocalAtDomain(_ address: String) {
        let message = MailMessage(from: "no-reply@chatter.test", to: address, subject: "s", body: "b")
        #expect(throws: MailError.self) { try message.rfc5322(date: Self.date, messageID: "<1@chatter.test>") }
    }

    @Test func redactsAllButTheFirstLetterOfTheLocalPart() throws {
        #expect(try MailAddress("Ada <ada@example.com>", role: "recipient").redacted == "a***@example.com")
    }

    @Test(arguments: [
        ("no-reply@chatter.test", "no-reply@chatter.test"),
        ("<no-reply@chatter.test>", "no-reply@chatter.test"),
        ("Chatter <no-reply@chatter.test>", "Chatter <no-reply@chatter.test>"),
        ("\"Chatter, Inc.\" <no-reply@chatter.test>", "\"Chatter, Inc.\" <no-reply@chatter.test>"),
        ("Chatter \"Dev\" (local) <no-reply@chatter.test>", "\"Chatter \\\"Dev\\\" (local)\" <no-reply@chatter.test>"),
        ("Zoë's Chatter <no-reply@chatter.test>", "=?utf-8?B?Wm/DqydzIENoYXR0ZXI=?= <no-reply@chatter.test>"),
    ])
    func displayNamesAreKeptAndQuotedWhereNeeded(_ from: String, _ header: String) throws {
        let message = MailMessage(from: from, to: "b@example.com", subject: "s", body: "b")
        let text = try message.rfc5322(date: Self.date)
        #expect(text.contains("\r\nFrom: \(header)\r\n"))
        #expect(text.contains("\r\nMessage-ID: <") && text.contains("@chatter.test>\r\n"))
        #expect(try message.sender.address == "no-reply@chatter.test")
    }
}
