import Crypto
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// A page takes its slot's HTML in place of the first marker, joined as bytes (`PageSlot.body(filling:)`),
/// and a page's CSRF tokens all start from one key (`FormTokens`).
@Suite struct PageSlotTests {
    static func text(_ buffer: ByteBuffer) -> String { String(buffer: buffer) }

    @Test func theSlotTakesThePlaceOfTheFirstMarkerOnly() {
        let slot = PageSlot(name: "chatts", html: "<li>é 😀</li>")
        #expect(Self.text(slot.body(filling: "<p>ünï</p><!--chatts--><p>after</p>")) == "<p>ünï</p><li>é 😀</li><p>after</p>")
        #expect(Self.text(slot.body(filling: "<!--chatts-->")) == "<li>é 😀</li>")
        #expect(Self.text(slot.body(filling: "<!--chatts--><!--chatts-->")) == "<li>é 😀</li><!--chatts-->")
        #expect(Self.text(slot.body(filling: "a<!--chatts")) == "a<!--chatts", "a marker cut short is no marker")
        #expect(Self.text(slot.body(filling: "<!--other-->")) == "<!--other-->")
        #expect(Self.text(slot.body(filling: "")) == "")
        #expect(Self.text(slot.body(filling: "<!--<!--chatts-->")) == "<!--<li>é 😀</li>", "a false start is stepped over")
    }

    @Test func eachActionsTokenFromThePagesKeyIsTheTokenItsFormAccepts() {
        let browser = SessionToken.generate().secret
        let tokens = FormTokens(browserID: browser)
        for action in FormAction.allCases {
            // Written out as swift-crypto's one-shot HMAC, so a change to the key or message cannot pass unseen.
            let oneShot = HMAC<SHA256>.authenticationCode(for: Array("chatterd form\n\(action.rawValue)".utf8), using: SymmetricKey(data: Array(browser.utf8)))
            #expect(action.csrfToken(forBrowser: browser) == Hex.encode(oneShot))
            let expected = action.isDestructive ? "" : Hex.encode(oneShot)
            #expect(tokens.child(named: action.name) as? String == expected, "\(action)")
            #expect(tokens.child(named: action.name) as? String == expected, "asked again: \(action)")
        }
        #expect(tokens.child(named: "nothing") as? String == "")
        #expect(FormTokens(browserID: nil).child(named: FormAction.post.name) as? String == "")
        #expect(FormTokens(browserID: "another").child(named: FormAction.post.name) as? String != tokens.child(named: FormAction.post.name) as? String)
    }
}
