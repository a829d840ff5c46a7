import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// `/admin`: for accounts an operator marked with `chatterd admin grant`. Find accounts, see one's
/// identities and sessions, end sessions, disable, enable or delete it, and read the audit log; the same
/// `AdminService` as `chatterd admin`, so the same rules and audit, with this admin as the actor.
struct AdminPages {
    let admin: AdminService
    let access: OperatorAccess
    let pages: WebPages
    let web: WebSessions

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.get("admin") { request, context in try await list(request, context) }
        router.get("admin/users/:id") { request, context in try await show(request, context) }
        router.post(RouterPath(FormAction.endSession.route)) { request, context in try await endSession(request, context) }
        router.post(RouterPath(FormAction.endSessions.route)) { request, context in try await endSessions(request, context) }
        router.get(RouterPath(FormAction.disableAccount.route)) { request, context in try await confirm(.disable, request, context) }
        router.post(RouterPath(FormAction.disableAccount.route)) { request, context in try await setDisabled(true, request, context) }
        router.post(RouterPath(FormAction.enableAccount.route)) { request, context in try await setDisabled(false, request, context) }
        router.get(RouterPath(FormAction.deleteOtherAccount.route)) { request, context in try await confirm(.delete, request, context) }
        router.post(RouterPath(FormAction.deleteOtherAccount.route)) { request, context in try await delete(request, context) }
        router.get("admin/audit") { request, context in try await audit(request, context) }
    }

    static let noSuchAccount = APIError(.notFound, .notFound, "There is no such account.")
    static let signInFirst = WebSessions.redirect(to: "/auth?next=/admin")

    /// Who asks, and whether they may: an operator (`OperatorAccess`), or the answer to give instead (sign in
    /// first; confirm it is you). `changing`: a change's form or its confirmation, which takes a recent step-up.
    private enum Access {
        case allowed(WebVisitor, AuthenticatedSession)
        case answer(Response)
    }

    private func operatorAccess(_ context: ChatterRequestContext, changing: Bool = false) async throws -> Access {
        let visitor = try context.requireVisitor()
        guard let session = visitor.session else { return .answer(Self.signInFirst) }
        do { try await access.require(session, changing: changing) } catch SecondFactorError.stepUpRequired { return .answer(stepUp(context)) }
        return .allowed(visitor, session)
    }

    /// The account page the operator comes back to after a step-up.
    private func stepUp(_ context: ChatterRequestContext) -> Response {
        let id = context.parameters.get("id").flatMap(UUID.init(uuidString:))
        return StepUpPages.ask(returningTo: id.map { "/admin/users/\($0.uuidString)" } ?? "/admin")
    }

    /// The account the path names, which must not be the operator's own for the changes these pages make
    /// to it (their own account has its page at /account).
    private func target(_ context: ChatterRequestContext, notSelf session: AuthenticatedSession? = nil) throws -> UUID {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw Self.noSuchAccount
        }
        if let session { return try admin.target(id, changedBy: session.user) }
        return id
    }

    struct ListPage: PageContent {
        struct Row {
            let id, name, email, createdISO, createdUTC: String
            let admin, disabled: Bool
        }
        let frame: PageFrame
        let query: String
        let rows: [Row]
        let none: Bool
    }

    func list(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor: WebVisitor
        switch try await operatorAccess(context) {
        case .allowed(let operatorVisitor, _): visitor = operatorVisitor
        case .answer(let response): return response
        }
        let query = String((request.uri.queryParameters.get("q") ?? "").prefix(200))
        let found = try await admin.find(query, limit: 100)
        let rows = found.map {
            ListPage.Row(
                id: $0.user.id.uuidString, name: $0.user.displayName, email: $0.emails.first ?? "", createdISO: TimeText.iso($0.createdAt),
                createdUTC: TimeText.utc($0.createdAt), admin: $0.isAdmin, disabled: $0.disabledAt != nil)
        }
        let notice = request.uri.queryParameters.get("notice").flatMap(AdminNotice.init(rawValue:))?.text
        return pages.render(
            "admin", ListPage(frame: pages.frame("Accounts", visitor, notice: notice), query: query, rows: rows, none: rows.isEmpty), visitor: visitor)
    }

    struct UserPage: PageContent {
        struct IdentityRow {
            let issuer, subject, email: String
            let verified: Bool
        }
        struct SessionRow { let sessionID, device, ip, createdISO, createdUTC, usedISO, usedUTC: String }
        let frame: PageFrame
        let userID, name, createdISO, createdUTC: String
        let disabledUTC: String?
        let admin, own, hasPassword: Bool
        let identities: [IdentityRow]
        let sessions: [SessionRow]
    }

    func show(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session): (WebVisitor, AuthenticatedSession)
        switch try await operatorAccess(context) {
        case .allowed(let operatorVisitor, let operatorSession): (visitor, session) = (operatorVisitor, operatorSession)
        case .answer(let response): return response
        }
        let id = try target(context)
        let details: AdminService.AccountDetails
        do { details = try await admin.details(of: id) } catch is AdminService.Failure {
            throw Self.noSuchAccount
        }
        let account = details.account
        let notice = request.uri.queryParameters.get("notice").flatMap(AdminNotice.init(rawValue:))?.text
        let page = UserPage(
            frame: pages.frame(account.user.displayName, visitor, notice: notice), userID: id.uuidString, name: account.user.displayName,
            createdISO: TimeText.iso(account.createdAt), createdUTC: TimeText.utc(account.createdAt), disabledUTC: account.disabledAt.map(TimeText.utc),
            admin: account.isAdmin, own: id == session.user.id, hasPassword: details.hasPassword,
            identities: details.identities.map {
                UserPage.IdentityRow(issuer: $0.key.issuer, subject: $0.key.subject, email: $0.email ?? "", verified: $0.emailVerified)
            },
            sessions: details.sessions.map {
                UserPage.SessionRow(
                    sessionID: $0.id.uuidString, device: AccountPages.describe($0), ip: $0.ip ?? "unknown", createdISO: TimeText.iso($0.createdAt),
                    createdUTC: TimeText.utc($0.createdAt), usedISO: TimeText.iso($0.lastUsedAt), usedUTC: TimeText.utc($0.lastUsedAt))
            })
        return pages.render("admin-user", page, visitor: visitor)
    }

    /// Runs one change for the operator after the form's CSRF check, and shows the account's page again.
    private func change(
        _ request: Request, _ context: ChatterRequestContext, _ action: FormAction, notice: AdminNotice,
        _ body: (UUID, AuditActor, ClientInfo) async throws -> Void
    ) async throws -> Response {
        let (visitor, session): (WebVisitor, AuthenticatedSession)
        switch try await operatorAccess(context, changing: true) {
        case .allowed(let operatorVisitor, let operatorSession): (visitor, session) = (operatorVisitor, operatorSession)
        case .answer(let response): return response
        }
        _ = try await web.form(CSRFOnly.self, for: action, request, context, visitor: visitor)
        let id = try target(context, notSelf: session)
        try await body(id, .admin(session.user.id), context.client(request))
        return WebSessions.redirect(to: notice == .deleted ? "/admin?notice=deleted" : "/admin/users/\(id.uuidString)?notice=\(notice.rawValue)")
    }

    func endSession(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        try await change(request, context, .endSession, notice: .sessionEnded) { id, actor, client in
            guard let sessionID = context.parameters.get("session").flatMap(UUID.init(uuidString:)) else {
                throw APIError(.notFound, .notFound, "There is no such session.")
            }
            try await admin.endSession(sessionID, of: id, by: actor, client: client)
        }
    }

    func endSessions(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        try await change(request, context, .endSessions, notice: .sessionsEnded) { id, actor, client in
            try await admin.endSessions(of: id, by: actor, client: client)
        }
    }

    func setDisabled(_ disabled: Bool, _ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        try await change(request, context, disabled ? .disableAccount : .enableAccount, notice: disabled ? .disabled : .enabled) { id, actor, client in
            try await admin.setDisabled(disabled, userID: id, by: actor, client: client)
        }
    }

    /// A change that cannot be taken back at a click: it has a page of its own, the only page that carries
    /// its form's CSRF token, so a button elsewhere (or one an injected attribute redirected) cannot make it.
    enum Confirmation {
        case disable, delete

        var action: FormAction { self == .disable ? .disableAccount : .deleteOtherAccount }

        func heading(_ name: String) -> String { self == .disable ? "Disable \(name)?" : "Delete \(name)?" }

        var consequence: String {
            switch self {
            case .disable: "will not be able to sign in, and its sessions end now. You can enable it again later; the audit log keeps a record."
            case .delete: "its identities, password, sessions and chatts will be removed. This cannot be undone; the audit log keeps a record."
            }
        }

        var button: String { self == .disable ? "Disable the account" : "Delete the account" }
        var path: String { self == .disable ? "disable" : "delete" }
    }

    struct ConfirmPage: PageContent {
        let frame: PageFrame
        let id, name, heading, consequence, button, path, csrf: String
    }

    func confirm(_ kind: Confirmation, _ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session): (WebVisitor, AuthenticatedSession)
        switch try await operatorAccess(context, changing: true) {
        case .allowed(let operatorVisitor, let operatorSession): (visitor, session) = (operatorVisitor, operatorSession)
        case .answer(let response): return response
        }
        let id = try target(context, notSelf: session)
        let account: AccountRecord
        do { account = try await admin.account(id: id) } catch is AdminService.Failure { throw Self.noSuchAccount }
        let name = account.user.displayName
        let heading = kind.heading(account.user.displayName)
        let page = ConfirmPage(
            frame: pages.frame(heading, visitor), id: id.uuidString, name: name, heading: heading, consequence: kind.consequence,
            button: kind.button, path: kind.path, csrf: kind.action.csrfToken(forBrowser: visitor.browserID))
        return pages.render("admin-confirm", page, visitor: visitor)
    }

    func delete(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        try await change(request, context, .deleteOtherAccount, notice: .deleted) { id, actor, client in
            try await admin.delete(userID: id, by: actor, client: client)
        }
    }

    struct AuditPage: PageContent {
        struct Row {
            let atISO, atUTC, event, user, method, ip, detail, actor: String
            let userLink: Bool
        }
        struct Kind {
            let name: String
            let selected: Bool
        }
        let frame: PageFrame
        let user, since, until: String
        let kinds: [Kind]
        let rows: [Row]
        let none: Bool
    }

    /// Filters by the query's `user` (id or email), `kind`, `since` and `until`; newest 200 first.
    func audit(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor: WebVisitor
        switch try await operatorAccess(context) {
        case .allowed(let operatorVisitor, _): visitor = operatorVisitor
        case .answer(let response): return response
        }
        let query = request.uri.queryParameters
        let user = String((query.get("user") ?? "").prefix(200))
        let kind = query.get("kind") ?? ""
        let since = String((query.get("since") ?? "").prefix(40))
        let until = String((query.get("until") ?? "").prefix(40))
        var filter = AuditFilter(limit: 200)
        var problems: [String] = []
        if !user.trimmingCharacters(in: .whitespaces).isEmpty {
            do { filter.userID = try await admin.account(user).user.id } catch let failure as AdminService.Failure {
                problems.append(failure.description)
            }
        }
        if let event = AuditLog.Event(rawValue: kind) { filter.events = [event.rawValue] } else if !kind.isEmpty { problems.append("no such kind") }
        for (name, text, bound) in [("since", since, \AuditFilter.since), ("until", until, \AuditFilter.until)] where !text.isEmpty {
            guard let date = AuditTime.parse(text) else {
                problems.append("\(name) is not a date")
                continue
            }
            filter[keyPath: bound] = date
        }
        let events = problems.isEmpty ? try await admin.auditEvents(filter) : []
        let rows = events.map { e in
            AuditPage.Row(
                atISO: TimeText.iso(e.at), atUTC: TimeText.utc(e.at), event: e.event, user: e.userID?.uuidString ?? "", method: e.method ?? "",
                ip: e.client.ip ?? "", detail: e.detail ?? "", actor: e.actor?.description ?? "", userLink: e.userID != nil)
        }
        let page = AuditPage(
            frame: pages.frame("Audit log", visitor, error: problems.isEmpty ? nil : "Cannot filter: " + problems.joined(separator: "; ") + "."),
            user: user, since: since, until: until,
            kinds: AuditLog.Event.allCases.map { AuditPage.Kind(name: $0.rawValue, selected: $0.rawValue == kind) }, rows: rows,
            none: rows.isEmpty)
        return pages.render("admin-audit", page, status: problems.isEmpty ? .ok : .badRequest, visitor: visitor)
    }
}

/// What the admin pages confirm after a change.
enum AdminNotice: String {
    case sessionEnded = "session-ended"
    case sessionsEnded = "sessions-ended"
    case disabled, enabled, deleted

    var text: String {
        switch self {
        case .sessionEnded: "The session is ended."
        case .sessionsEnded: "Every session of this account is ended."
        case .disabled: "The account is disabled and its sessions are ended."
        case .enabled: "The account may sign in again."
        case .deleted: "The account is deleted."
        }
    }
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension AdminPages.ListPage.Row: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "email": email
        case "createdISO": createdISO
        case "createdUTC": createdUTC
        case "admin": admin
        case "disabled": disabled
        default: nil
        }
    }
}

extension AdminPages.ListPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "query": query
        case "rows": rows
        case "none": none
        default: nil
        }
    }
}

extension AdminPages.UserPage.IdentityRow: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "issuer": issuer
        case "subject": subject
        case "email": email
        case "verified": verified
        default: nil
        }
    }
}

extension AdminPages.UserPage.SessionRow: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "sessionID": sessionID
        case "device": device
        case "ip": ip
        case "createdISO": createdISO
        case "createdUTC": createdUTC
        case "usedISO": usedISO
        case "usedUTC": usedUTC
        default: nil
        }
    }
}

extension AdminPages.UserPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "userID": userID
        case "name": name
        case "createdISO": createdISO
        case "createdUTC": createdUTC
        case "disabledUTC": disabledUTC
        case "admin": admin
        case "own": own
        case "hasPassword": hasPassword
        case "identities": identities
        case "sessions": sessions
        default: nil
        }
    }
}

extension AdminPages.ConfirmPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "id": id
        case "name": name
        case "heading": heading
        case "consequence": consequence
        case "button": button
        case "path": path
        case "csrf": csrf
        default: nil
        }
    }
}

extension AdminPages.AuditPage.Row: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "atISO": atISO
        case "atUTC": atUTC
        case "event": event
        case "user": user
        case "method": method
        case "ip": ip
        case "detail": detail
        case "actor": actor
        case "userLink": userLink
        default: nil
        }
    }
}

extension AdminPages.AuditPage.Kind: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "name": name
        case "selected": selected
        default: nil
        }
    }
}

extension AdminPages.AuditPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "user": user
        case "since": since
        case "until": until
        case "kinds": kinds
        case "rows": rows
        case "none": none
        default: nil
        }
    }
}
