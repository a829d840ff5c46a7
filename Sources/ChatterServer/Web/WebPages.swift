import ChatterCore
import ChatterDomain
import ChatterStorage
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// The web app's templates and static files, loaded once from the bundle, and the headers every page
/// carries: a content security policy without inline script, no framing unless the operator allows an
/// app's origin, a same-origin referrer, and no caching of pages that show one person's data.
struct WebPages: Sendable {
    /// Every template, compiled once (`PageTemplate`).
    let templates: [String: PageTemplate]
    /// The same templates in swift-mustache, which rendered the pages before `PageTemplate`: debug builds
    /// render every page with both and compare the bytes.
    let library: MustacheLibrary
    /// Every template the bundle holds, by the name pages render it with.
    let templateNames: [String]
    /// Those that are parts of a page (`fragment(_:_:)`), not pages in the layout.
    let fragmentNames: Set<String>
    let assets: [String: StaticAsset]
    let policy: WebPolicy

    struct StaticAsset: Sendable {
        let bytes: ByteBuffer
        let contentType: String
        /// A digest of the content: URLs carry it, so a new build is fetched at once and an old one can be cached long.
        let version: String
    }

    /// Every page's headers, and those of the page with Google's button: the policy never changes, so both are made once.
    let plainHeaders: HTTPFields
    let googleHeaders: HTTPFields

    init(policy: WebPolicy) {
        (templates, library, assets, templateNames, fragmentNames) = (
            Self.bundled.templates, Self.bundled.library, Self.bundled.assets, Self.bundled.names, Self.bundled.fragments
        )
        self.policy = policy
        plainHeaders = Self.headers(policy, google: false)
        googleHeaders = Self.headers(policy, google: true)
    }

    /// Read once per process. A file missing from the bundle is a packaging mistake: its pages answer 500
    /// and the web tests fail.
    private static let bundled:
        (
            templates: [String: PageTemplate], library: MustacheLibrary, assets: [String: StaticAsset], names: [String], fragments: Set<String>
        ) = {
            MustacheContentTypes.register(HTMLText(), named: HTMLText.pragmaName)
            var sources: [String: String] = [:]
            var assets: [String: StaticAsset] = [:]
            var names: [String] = []
            var fragments: Set<String> = []
            guard let root = Bundle.module.url(forResource: "Web", withExtension: nil) else { return ([:], MustacheLibrary(), assets, names, fragments) }
            let templates = root.appendingPathComponent("templates")
            // fail-closed: templates that cannot be listed are none: every page answers 500
            for name in (try? FileManager.default.contentsOfDirectory(atPath: templates.path)) ?? [] where name.hasSuffix(".mustache") {
                // fail-closed: a template that cannot be read is skipped: its page answers 500
                guard let text = try? String(contentsOf: templates.appendingPathComponent(name), encoding: .utf8) else { continue }
                // Every template escapes through `HTMLText`: the pragma goes first, so none can forget it.
                let template = String(name.dropLast(".mustache".count))
                sources[template] = HTMLText.pragma + text
                if template != "layout", !text.hasPrefix("{{<layout}}") { fragments.insert(template) }
            }
            let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml"]
            let statics = root.appendingPathComponent("static")
            // fail-closed: static files that cannot be listed are none: each answers 404
            for name in (try? FileManager.default.contentsOfDirectory(atPath: statics.path)) ?? [] {
                // fail-closed: a static file that cannot be read is skipped: it answers 404
                guard let type = types[(name as NSString).pathExtension], let data = try? Data(contentsOf: statics.appendingPathComponent(name)) else {
                    continue
                }
                let digest = Hex.encode(SHA256.hash(data: data).prefix(6))
                assets[name] = StaticAsset(bytes: ByteBuffer(bytes: data), contentType: type, version: digest)
            }
            #if DEBUG
                // Only debug builds render each page a second time, with swift-mustache, to compare (`render`): a
                // release build keeps no second copy of the templates and does no second parse at start.
                let library = Self.reference(&sources)
            #else
                let library = MustacheLibrary()
            #endif
            // fail-closed: a template the compiler refuses is left out: its page answers 500
            let compiled = PageTemplate.compile(sources).templates
            names = compiled.keys.sorted()
            return (compiled, library, assets, names, fragments)
        }()

    #if DEBUG
        /// swift-mustache's library of the same templates, the reference debug builds compare pages with.
        private static func reference(_ sources: inout [String: String]) -> MustacheLibrary {
            var library = MustacheLibrary()
            for (name, text) in sources {
                // fail-closed: a template swift-mustache does not take is left out of the debug build too: it answers 500
                if (try? library.register(text, named: name)) == nil { sources[name] = nil }
            }
            return library
        }
    #endif

    /// Part of a page rendered on its own through `template`, with the same escaping, for a `PageSlot`.
    func fragment(_ template: String, _ value: some TemplateFields) -> String {
        assert(TemplateFieldsCheck.problems(in: value, path: template).isEmpty, "\(TemplateFieldsCheck.problems(in: value, path: template))")
        guard let compiled = templates[template] else { return "" }
        let html = compiled.render(value)
        assert(html == library.render(value, withTemplate: template), "\(template) renders otherwise than swift-mustache did")
        return html
    }

    /// The URL of a static file, versioned by its content.
    func assetURL(_ name: String) -> String {
        "/static/\(name)?v=\(assets[name]?.version ?? "0")"
    }

    /// `page` rendered through `template`, with the security headers and any cookies `visitor` needs set,
    /// and `slot`'s HTML in place of its comment.
    func render(
        _ template: String, _ page: some PageContent, status: HTTPResponse.Status = .ok, visitor: WebVisitor?, google: Bool = false,
        slot: PageSlot? = nil
    ) -> Response {
        // Debug builds (every test) check that the page hands the template each of its values (`TemplateFields`).
        assert(TemplateFieldsCheck.problems(in: page, path: template).isEmpty, "\(TemplateFieldsCheck.problems(in: page, path: template))")
        guard let html = templates[template]?.render(page) else {
            return Response(
                status: .internalServerError, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "chatterd: the page template is missing")))
        }
        // Debug builds (every test) compare the page with swift-mustache's rendering of it, byte for byte.
        assert(html == library.render(page, withTemplate: template), "\(template) renders otherwise than swift-mustache did")
        let body = slot?.body(filling: html) ?? ByteBuffer(string: html)
        var response = Response(status: status, headers: google ? googleHeaders : plainHeaders, body: .init(byteBuffer: body))
        if let visitor, visitor.isNewBrowser { response.headers.append(HTTPField(name: .setCookie, value: visitor.browserCookie)) }
        return response
    }

    private static func headers(_ policy: WebPolicy, google: Bool) -> HTTPFields {
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .contentSecurityPolicy: policy.contentSecurityPolicy(google: google),
            .referrerPolicy: "same-origin",
            .xContentTypeOptions: "nosniff",
            .cacheControl: "no-store",
        ]
        if policy.frameAncestors.isEmpty { headers[.xFrameOptions] = "DENY" }
        return headers
    }

    func asset(_ name: String) -> Response? {
        guard let asset = assets[name] else { return nil }
        return Response(
            status: .ok,
            headers: [.contentType: asset.contentType, .cacheControl: "public, max-age=31536000, immutable", .xContentTypeOptions: "nosniff"],
            body: .init(byteBuffer: asset.bytes))
    }
}

/// What the operator chose for the pages: which origins may frame them, and Google's web client ID.
struct WebPolicy: Sendable {
    var frameAncestors: [String] = []
    var googleWebClientID: String?
    /// The web origins passkeys work from: a page elsewhere (another host name, plain http) says so before
    /// the browser makes a credential the server would then refuse, left behind on the device.
    var passkeyOrigins: [String] = []

    static let google = "https://accounts.google.com/gsi/"

    /// Scripts and styles from chatterd only (Google's sign-in library too, on the page that shows its button).
    /// Written out rather than through Hummingbird's `ContentSecurityPolicy`, whose directives take a fixed
    /// list of sources, where the frame ancestors are the operator's list.
    func contentSecurityPolicy(google: Bool) -> String {
        let withGoogle = google && googleWebClientID != nil
        let ancestors = frameAncestors.isEmpty ? "'none'" : frameAncestors.joined(separator: " ")
        var parts = [
            "default-src 'none'",
            "script-src 'self'" + (withGoogle ? " \(Self.google)client" : ""),
            "style-src 'self'" + (withGoogle ? " \(Self.google)style" : ""),
            "img-src 'self' data:",
            "connect-src 'self'" + (withGoogle ? " \(Self.google)" : ""),
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors \(ancestors)",
        ]
        if withGoogle { parts.append("frame-src \(Self.google)") }
        return parts.joined(separator: "; ")
    }
}

/// HTML rendered apart (a fragment, which may be kept: the timeline's newest chatts) that a page takes in
/// place of the comment `<!--name-->` in its template. Only a template's own text can hold that comment:
/// `HTMLText` escapes every `<` a value brings, so no chatt, name or header can place or move a slot.
struct PageSlot {
    let name: String
    let html: String

    var marker: String { "<!--\(name)-->" }

    /// `page` with this slot's HTML in place of the first marker, as a response body: found and joined as
    /// bytes. `String.firstRange(of:)` compared `Character`s, a fifth of the timeline page's instructions.
    func body(filling page: String) -> ByteBuffer {
        var page = page
        return page.withUTF8 { bytes in
            var body = ByteBuffer()
            body.reserveCapacity(bytes.count + html.utf8.count)
            let needle = Array(marker.utf8)
            guard let at = Self.firstIndex(of: needle, in: bytes) else {
                body.writeBytes(bytes)
                return body
            }
            body.writeBytes(UnsafeBufferPointer(rebasing: bytes[..<at]))
            body.writeString(html)
            body.writeBytes(UnsafeBufferPointer(rebasing: bytes[(at + needle.count)...]))
            return body
        }
    }

    static func firstIndex(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// What every page's layout shows. A page hands its values to the template by name (`TemplateFields`).
protocol PageContent: TemplateFields {
    var frame: PageFrame { get }
}

/// Templates read stored properties only (each listed in `child(named:)`), so nothing here is computed.
struct PageFrame {
    var title: String
    /// `frame.csrf.<action>`: the token for the form posting to that action (`FormAction`).
    var csrf: FormTokens
    var user: String?
    var signedIn: Bool
    var notice: String?
    var error: String?
    var css: String
    var js: String
    var icon: String
    /// `WebPolicy.passkeyOrigins`, space-separated, for the passkey forms' check.
    var passkeyOrigins: String
}

extension WebPages {
    func frame(_ title: String, _ visitor: WebVisitor?, notice: String? = nil, error: String? = nil) -> PageFrame {
        PageFrame(
            title: title, csrf: FormTokens(browserID: visitor?.browserID), user: visitor?.session?.user.displayName, signedIn: visitor?.session != nil,
            notice: notice, error: error, css: assetURL("chatter.css"), js: assetURL("chatter.js"),
            icon: assetURL("favicon.svg"), passkeyOrigins: policy.passkeyOrigins.joined(separator: " "))
    }
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension PageFrame: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "title": title
        case "csrf": csrf
        case "user": user
        case "signedIn": signedIn
        case "notice": notice
        case "error": error
        case "css": css
        case "js": js
        case "icon": icon
        case "passkeyOrigins": passkeyOrigins
        default: nil
        }
    }
}
