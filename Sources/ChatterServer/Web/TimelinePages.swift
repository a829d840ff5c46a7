import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// `/`: the timeline, newest first, readable without signing in; a post form when signed in.
struct TimelinePages {
    let timeline: Timeline
    let pages: WebPages
    let web: WebSessions
    /// The newest chatts as the page lists them, kept rendered while they stay the newest.
    let newest = RenderedChatts()

    /// The timeline's own page size, so the newest page comes from its cache.
    static let pageSize = Timeline.defaultPage

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.get("/") { request, context in try await show(request, visitor: try context.requireVisitor()) }
        router.post(RouterPath(FormAction.post.route)) { request, context in try await post(request, context) }
    }

    struct Page: PageContent {
        let frame: PageFrame
        let hasChatts: Bool
        let older: String?
        let paged: Bool
        let maxLength = Limits.messageCharacters
        let draft: String
        /// Names this rendering's post: the form sent twice makes one chatt (`Timeline.post(_:by:key:)`).
        let postKey: String
    }

    func show(_ request: Request, visitor: WebVisitor, draft: String = "", error: APIError? = nil) async throws -> Response {
        let before = request.uri.queryParameters.get("before").flatMap(UUID.init(uuidString:))
        let chatts = try await timeline.chatts(before: before, limit: Self.pageSize)
        let notice = request.uri.queryParameters.get("notice").flatMap(Notice.init(rawValue:))?.text
        let page = Page(
            frame: pages.frame("Timeline", visitor, notice: notice, error: error?.body.message),
            hasChatts: !chatts.isEmpty, older: chatts.count == Self.pageSize ? chatts.last?.id.uuidString : nil, paged: before != nil,
            draft: draft, postKey: visitor.session == nil ? "" : SessionToken.generate().secret)
        let html = before == nil ? newest.html(for: chatts) { list(chatts) } : list(chatts)
        return pages.render("timeline", page, status: error?.status ?? .ok, visitor: visitor, slot: PageSlot(name: "chatts", html: html))
    }

    /// What the `chatts` template lists: each chatt's author, text and time.
    struct List {
        struct Item { let name, message, iso, utc: String }
        let chatts: [Item]
    }

    private func list(_ chatts: [Chatt]) -> String {
        pages.fragment(
            "chatts", List(chatts: chatts.map { List.Item(name: $0.name, message: $0.message, iso: TimeText.iso($0.time), utc: TimeText.utc($0.time)) }))
    }

    struct PostForm: WebForm {
        let csrf: String
        let message: String
        let key: String?
    }

    func post(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(PostForm.self, for: .post, request, context, visitor: visitor)
        guard let session = visitor.session else { return WebSessions.redirect(to: "/auth?next=/") }
        do {
            // A key of the page's own size only: anything else posts unkeyed, as a form without one does.
            let key = form.key.flatMap { (16...64).contains($0.utf8.count) ? $0 : nil }
            try await timeline.post(try Timeline.Draft(page: form.message), by: session.user, key: key)
        } catch let error as any APIErrorConvertible {
            return try await show(request, visitor: visitor, draft: form.message, error: error.apiError)
        }
        return WebSessions.redirect(to: "/")
    }
}

/// What a redirect can ask a page to say: a closed set, so a link cannot put words on the page.
enum Notice: String {
    case signedOut = "signed-out"
    case signedOutEverywhere = "signed-out-everywhere"
    case revoked, deleted
    case alreadySignedIn = "signed-in"
    case passkeyAdded = "passkey-added"
    case passkeyRenamed = "passkey-renamed"
    case passkeyRemoved = "passkey-removed"
    case twoStepOff = "two-step-off"
    case renamed
    case emailChanged = "email-changed"
    case twoStepOn = "two-step-on"
    case newRecoveryCodes = "new-recovery-codes"
    case passwordAdded = "password-added"
    case passwordChanged = "password-changed"

    var text: String {
        switch self {
        case .signedOut: "You are signed out of this browser."
        case .signedOutEverywhere: "You are signed out everywhere."
        case .revoked: "That session is signed out."
        case .deleted: "Your account is deleted."
        case .alreadySignedIn: "You are signed in."
        case .passkeyAdded: "Your passkey is added: you can sign in with it now."
        case .passkeyRenamed: "The passkey is renamed."
        case .passkeyRemoved: "The passkey is removed."
        case .twoStepOff: "Two-step sign-in is off: your password or an emailed code alone signs you in."
        case .twoStepOn: "Two-step sign-in is on."
        case .newRecoveryCodes: "New recovery codes: the old ones no longer work."
        case .emailChanged: "Your email address is changed: codes go to the new one, and the old one was told."
        case .renamed: "Your name is changed. New chatts show it; earlier ones keep the name they were posted under."
        case .passwordAdded: "Your password is set: you can sign in with your email and it now."
        case .passwordChanged: "Your password is changed. Your other sessions are signed out."
        }
    }
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension TimelinePages.List.Item: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "name": name
        case "message": message
        case "iso": iso
        case "utc": utc
        default: nil
        }
    }
}

extension TimelinePages.Page: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "hasChatts": hasChatts
        case "older": older
        case "paged": paged
        case "maxLength": maxLength
        case "draft": draft
        case "postKey": postKey
        default: nil
        }
    }
}

extension TimelinePages.List: TemplateFields {
    func child(named key: String) -> Any? { key == "chatts" ? chatts : nil }
}

/// The newest chatts' list, rendered once for as long as they are the newest: compared by value, so a page
/// never shows a list other than the one its own read returned, whichever instance wrote the chatts.
final class RenderedChatts: Sendable {
    private let kept = Mutex<(chatts: [Chatt], html: String)?>(nil)

    func html(for chatts: [Chatt], render: () -> String) -> String {
        if let kept = kept.withLock({ $0 }), kept.chatts == chatts { return kept.html }
        let html = render()
        kept.withLock { $0 = (chatts, html) }
        return html
    }
}
