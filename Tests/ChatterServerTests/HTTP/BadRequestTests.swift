import ChatterTestSupport
import ChatterWire
import Foundation
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Every kind of bad request gets the right 4xx, a JSON error body with a message, and changes nothing.
@Suite struct BadRequestTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var method: HTTPRequest.Method = .post
        var path: String
        var body: String
        var status: HTTPResponse.Status
        var code: String
        var testDescription: String { label }
    }

    static let longMessage = String(repeating: "é", count: Limits.messageCharacters + 1)
    static let oversized = "{\"chatterID\":\"x\",\"message\":\"" + String(repeating: "a", count: Limits.bodyBytes) + "\"}"

    static let cases: [Case] = [
        Case(label: "malformed JSON", path: "/postauth", body: "{\"chatterID\":", status: .unprocessableContent, code: "invalid_body"),
        Case(label: "not an object", path: "/adduser", body: "[1,2]", status: .unprocessableContent, code: "invalid_body"),
        Case(label: "empty body", path: "/adduser", body: "", status: .unprocessableContent, code: "invalid_body"),
        Case(label: "wrong type", path: "/postauth", body: #"{"chatterID":5,"message":"hi"}"#, status: .unprocessableContent, code: "invalid_body"),
        Case(label: "null field", path: "/adduser", body: #"{"clientID":null,"idToken":"x"}"#, status: .unprocessableContent, code: "invalid_body"),
        Case(label: "missing field", path: "/adduser", body: #"{"clientID":"x"}"#, status: .unprocessableContent, code: "invalid_body"),
        Case(
            label: "message too long", path: "/postauth", body: #"{"chatterID":"x","message":"\#(longMessage)"}"#, status: .badRequest, code: "field_too_long"),
        Case(label: "oversized body", path: "/postauth", body: oversized, status: .contentTooLarge, code: "body_too_large"),
        Case(
            label: "unknown chatterID", path: "/postauth", body: #"{"chatterID":"not-a-session","message":"hi"}"#, status: .unauthorized,
            code: "invalid_session"),
        Case(
            label: "garbage ID token", path: "/adduser", body: #"{"clientID":"\#(TestIssuer.clientID)","idToken":"a.b.c"}"#, status: .unauthorized,
            code: "invalid_token"),
        Case(
            label: "anonymous posting off", path: "/postchatt", body: #"{"name":"Mallory","message":"hi"}"#, status: .forbidden,
            code: "anonymous_posting_disabled"),
        Case(label: "unknown route", method: .get, path: "/nowhere", body: "", status: .notFound, code: "not_found"),
    ]

    @Test(arguments: cases)
    func refusedWithJSONAndNothingChanged(_ bad: Case) async throws {
        try await Harness.run { h async throws in
            let session = try await h.signIn()
            _ = try await h.post("/postauth", PostAuthRequest(chatterID: session.chatterID, message: "existing"))
            let before = try await h.counts()
            let timeline = try await h.timeline()

            let response = try await h.client.execute(
                uri: bad.path, method: bad.method, headers: [.contentType: "application/json"],
                body: bad.body.isEmpty ? nil : ByteBuffer(string: bad.body))
            #expect(response.status == bad.status)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let error = try h.decode(ErrorBody.self, response)
            #expect(error.error == bad.code)
            #expect(!error.message.isEmpty)

            #expect(try await h.counts() == before)
            #expect(try await h.timeline() == timeline)
        }
    }

    @Test func anonymousNameOverLimitIsA400() async throws {
        try await Harness.run(configure: { $0.allowAnonymousPosting = true }) { h async throws in
            let name = String(repeating: "n", count: Limits.nameCharacters + 1)
            let response = try await h.post("/postchatt", PostChattRequest(name: name, message: "hi"))
            #expect(response.status == .badRequest)
            #expect(try await h.store.chattCount() == 0)
        }
    }
}
