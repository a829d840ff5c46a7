import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// `/admin` over HTTP: who may see it, the forms' CSRF rule, and that each change is made and audited
/// with the operator as its actor (the browser walks the same pages in Tests/Browser).
@Suite struct AdminPagesTests {
    /// An operator signed in through the web, and a member with a native session.
    func signedInOperator(_ h: Harness) async throws -> (WebBrowser, operatorID: UUID, member: SessionResponse, memberID: UUID) {
        var browser = WebBrowser(h)
        #expect(try await browser.signInWithCode("root@example.com").status == .seeOther)
        let operatorID = try #require(try await h.store.accounts(withEmail: "root@example.com").first?.user.id)
        try await h.services.admin.setAdmin(true, userID: operatorID, by: .commandLine(login: "test"))
        // Operators need two-step sign-in; turning it on is this browser's step-up for the next ten minutes.
        _ = try await browser.enrolSecondFactor(h)
        let member = try await h.nativeSignIn(subject: "member", name: "Member Mo", email: "mo@example.com")
        return (browser, operatorID, member, try #require(UUID(uuidString: member.user.id)))
    }

    @Test func thePagesAreForOperatorsOnly() async throws {
        try await Harness.run { h async throws in
            var stranger = WebBrowser(h)
            let anonymous = try await stranger.get("/admin")
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/auth?next=/admin")
            #expect(try await stranger.signInWithCode("someone@example.com").status == .seeOther)
            for path in ["/admin", "/admin/audit", "/admin/users/\(UUID().uuidString)"] {
                let refused = try await stranger.get(path)
                #expect(refused.status == .forbidden, "\(path)")
                #expect(!WebBrowser.text(refused).contains("someone@example.com"))
            }
            let id = try #require(try await h.store.accounts(withEmail: "someone@example.com").first?.user.id)
            #expect(try await stranger.post("/admin/users/\(id.uuidString)/disable", []).status == .forbidden)
            #expect(try await h.store.account(id: id)?.disabledAt == nil)

            try await h.services.admin.setAdmin(true, userID: id, by: .commandLine(login: "test"))
            _ = try await stranger.enrolSecondFactor(h)
            #expect(try await stranger.get("/admin").status == .ok)
            try await h.services.admin.setAdmin(false, userID: id, by: .commandLine(login: "test"))
            #expect(try await stranger.get("/admin").status == .forbidden, "revoking takes effect at the next request")
        }
    }

    @Test func anOperatorFindsAnAccountAndSeesItsIdentitiesAndSessions() async throws {
        try await Harness.run { h async throws in
            var (browser, _, member, memberID) = try await signedInOperator(h)
            let list = WebBrowser.text(try await browser.get("/admin"))
            #expect(list.contains("Member Mo") && list.contains("root@example.com"))
            let found = WebBrowser.text(try await browser.get("/admin?q=mo%40example"))
            #expect(found.contains("Member Mo") && !found.contains("root@example.com"))
            #expect(WebBrowser.text(try await browser.get("/admin?q=%3Cscript%3E")).contains("&lt;script&gt;"), "the search is escaped")

            let page = try await browser.get("/admin/users/\(memberID.uuidString)")
            #expect(page.status == .ok)
            let text = WebBrowser.text(page)
            #expect(text.contains("https://accounts.google.com") && text.contains("mo@example.com"))
            #expect(text.contains(member.sessionID) && text.contains("Disable the account"))
            #expect(try await browser.get("/admin/users/\(UUID().uuidString)").status == .notFound)
            #expect(try await browser.get("/admin/users/not-an-id").status == .notFound)
        }
    }

    @Test func eachChangeNeedsTheFormsTokenAndIsAuditedWithTheOperator() async throws {
        try await Harness.run { h async throws in
            var (browser, operatorID, member, memberID) = try await signedInOperator(h)
            let user = "/admin/users/\(memberID.uuidString)"
            _ = try await browser.get(user)

            let forged = try await browser.post(user + "/disable", [], csrf: "forged")
            #expect(forged.status == .forbidden)
            #expect(try await h.store.account(id: memberID)?.disabledAt == nil)
            #expect(try await h.get(NativePath.me, bearer: member.accessToken).status == .ok)

            let endOne = try await browser.post(user + "/sessions/\(member.sessionID)/end", [])
            #expect(endOne.status == .seeOther && endOne.headers[.location] == user + "?notice=session-ended")
            #expect(try await h.get(NativePath.me, bearer: member.accessToken).status == .unauthorized)
            #expect(try await browser.post(user + "/sessions/\(member.sessionID)/end", []).status == .notFound, "already ended")

            _ = try await h.nativeSignIn(subject: "member")
            #expect(try await browser.post(user + "/disable", []).status == .seeOther)
            #expect(try await h.store.account(id: memberID)?.disabledAt != nil)
            #expect(try await h.store.sessions(of: memberID).isEmpty)
            #expect(WebBrowser.text(try await browser.get(user)).contains("Enable the account"))
            #expect(try await browser.post(user + "/enable", []).status == .seeOther)
            #expect(try await h.store.account(id: memberID)?.disabledAt == nil)

            #expect(try await browser.post("/admin/users/\(operatorID.uuidString)/disable", []).status == .conflict, "not one's own account")
            #expect(try await h.store.account(id: operatorID)?.disabledAt == nil)

            #expect(try await browser.get(user + "/delete").status == .ok)
            let deleted = try await browser.post(user + "/delete", [])
            #expect(deleted.status == .seeOther && deleted.headers[.location] == "/admin?notice=deleted")
            #expect(try await h.store.account(id: memberID) == nil)

            let audit = try await h.store.auditEvents(AuditFilter(userID: memberID))
            let byOperator = audit.filter { $0.actor == .admin(operatorID) }.map(\.event)
            #expect(byOperator == ["admin_account_deleted", "account_enabled", "account_disabled", "admin_session_revoked"])
            #expect(audit.first?.client.userAgent == browser.userAgent, "the operator's browser is recorded too")
        }
    }

    /// Threat model, Admin pages: the search text and the audit filters are cut (200 characters, dates 40)
    /// before they reach the store or the page; a huge one gets the page, with a 400 where a filter is wrong.
    @Test func hugeSearchesAndFiltersAreCutBeforeTheyAreUsed() async throws {
        try await Harness.run { h async throws in
            var (browser, _, _, _) = try await signedInOperator(h)
            let huge = String(repeating: "a", count: 5_000)
            let list = try await browser.get("/admin?q=\(huge)")
            #expect(list.status == .ok)
            #expect(WebBrowser.text(list).contains("value=\"\(String(repeating: "a", count: 200))\""), "the box shows the 200 used")
            #expect(!WebBrowser.text(list).contains(String(repeating: "a", count: 201)))
            let audit = try await browser.get("/admin/audit?user=\(huge)&since=\(huge)&until=\(huge)")
            #expect(audit.status == .badRequest, "the filters' page, saying what is wrong with them")
            let html = WebBrowser.text(audit)
            #expect(html.contains("value=\"\(String(repeating: "a", count: 200))\"") && !html.contains(String(repeating: "a", count: 201)))
            #expect(html.contains("since is not a date") && html.contains("until is not a date"))
        }
    }

    @Test func theAuditLogPageFiltersByAccountKindAndTime() async throws {
        try await Harness.run { h async throws in
            var (browser, _, _, memberID) = try await signedInOperator(h)
            _ = try await browser.get("/admin/users/\(memberID.uuidString)")
            #expect(try await browser.post("/admin/users/\(memberID.uuidString)/sessions/end", []).status == .seeOther)

            let all = WebBrowser.text(try await browser.get("/admin/audit"))
            #expect(all.contains("admin_sessions_revoked") && all.contains("sign_in"))
            let kind = WebBrowser.text(try await browser.get("/admin/audit?user=mo%40example.com&kind=admin_sessions_revoked"))
            #expect(kind.contains("admin_sessions_revoked") && kind.contains("1 session") && !kind.contains("<td>sign_in</td>"))
            let day = h.clock.now.formatted(Date.ISO8601FormatStyle().year().month().day())
            #expect(WebBrowser.text(try await browser.get("/admin/audit?since=\(day)")).contains("admin_sessions_revoked"))
            #expect(WebBrowser.text(try await browser.get("/admin/audit?until=\(day)")).contains("No events."))

            let bad = try await browser.get("/admin/audit?since=yesterday&kind=nonsense")
            #expect(bad.status == .badRequest)
            #expect(WebBrowser.text(bad).contains("since is not a date") && WebBrowser.text(bad).contains("no such kind"))
        }
    }
}
