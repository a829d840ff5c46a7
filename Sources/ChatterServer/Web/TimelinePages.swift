import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// `/`: the timeline, newest first, readable without signing in; a post form when signed in.
struct TimelinePages {
    let timeline: Timeline
    let pages: WebPages
    let web: WebSessions

    static let pageSize = 50

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.get("/") { request, context in try await show(request, visitor: try context.requireVisitor()) }
        router.post(RouterPath(FormAction.post.route)) { request, context in try await post(request, context) }
    }

    struct Page: PageContent {
        struct Item { let name, message, iso, utc: String }
        let frame: PageFrame
        let chatts: [Item]
        let hasChatts: Bool
        let older: String?
        let paged: Bool
        let maxLength = Limits.messageCharacters
        let draft: String
    }

    func show(_ request: Request, visitor: WebVisitor, draft: String = "", error: APIError? = nil) async throws -> Response {
        let before = request.uri.queryParameters.get("before").flatMap(UUID.init(uuidString:))
        let chatts = try await timeline.chatts(before: before, limit: Self.pageSize)
        let notice = request.uri.queryParameters.get("notice").flatMap(Notice.init(rawValue:))?.text
        let page = Page(
            frame: pages.frame("Timeline", visitor, notice: notice, error: error?.body.message),
            chatts: chatts.map { Page.Item(name: $0.name, message: $0.message, iso: WebTime.iso($0.time), utc: WebTime.utc($0.time)) },
            hasChatts: !chatts.isEmpty, older: chatts.count == Self.pageSize ? chatts.last?.id.uuidString : nil, paged: before != nil,
            draft: draft)
        return pages.render("timeline", page, status: error?.status ?? .ok, visitor: visitor)
    }

    struct PostForm: WebForm {
        let csrf: String
        let message: String
    }

    func post(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(PostForm.self, for: .post, request, context, visitor: visitor)
        guard let session = visitor.session else { return WebSessions.redirect(to: "/auth?next=/") }
        do {
            try await timeline.post(try Timeline.Draft(page: form.message), by: session.user)
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
        }
    }
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension TimelinePages.Page.Item: TemplateFields {
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
        case "chatts": chatts
        case "hasChatts": hasChatts
        case "older": older
        case "paged": paged
        case "maxLength": maxLength
        case "draft": draft
        default: nil
        }
    }
}
