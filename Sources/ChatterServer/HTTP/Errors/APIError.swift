import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// An error answered to the client as a JSON `ErrorBody` with the given status.
public struct APIError: Error, HTTPResponseError {
    public var status: HTTPResponse.Status
    public private(set) var body: ErrorBody
    public var headers: HTTPFields = [:]
    /// `body` already encoded, for errors answered often enough (bad chatterIDs) to skip encoding each time.
    private var encoded: ByteBuffer?

    public init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String, check: String? = nil, audience: [String]? = nil) {
        self.status = status
        self.body = ErrorBody(error: code.rawValue, message: message, check: check, audience: audience)
    }

    /// For an error Hummingbird raised, whose code is its status's reason phrase (`method_not_allowed`).
    init(_ status: HTTPResponse.Status, derivedCode: String, _ message: String) {
        self.status = status
        self.body = ErrorBody(error: derivedCode, message: message)
    }

    /// For `second_factor_required`: the waiting sign-in (`ErrorBody.secondFactor`).
    var secondFactor: SecondFactorChallenge? {
        get { body.secondFactor }
        set {
            body.secondFactor = newValue
            encoded = nil
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = encoded.map { JSONResponse.make(bytes: $0, status: status) } ?? JSONResponse.make(body, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    func preEncoded() -> APIError {
        var copy = self
        // fail-closed: a body that does not pre-encode is encoded again when answered, with the same status
        copy.encoded = (try? JSONResponse.encoder.encode(body)).map { ByteBuffer(bytes: $0) }
        return copy
    }

    func with(_ name: HTTPField.Name, _ value: String) -> APIError {
        var copy = self
        copy.headers[name] = value
        return copy
    }

    static func unprocessable(_ message: String) -> APIError { APIError(.unprocessableContent, .invalidBody, message) }
    static let notFound = APIError(.notFound, .notFound, "Not found.")
    /// Whatever the sign-in method: the session insert refused it (see `SessionRepository.createSession`).
    static let accountDisabled = APIError(
        .forbidden, .accountDisabled, "This account has been disabled by the server's operator; ask them to enable it again.")
}

/// A domain error's answer. Each domain error type has one mapping (`<Type>+HTTP.swift` beside this
/// file): `ErrorMiddleware` answers with it, as JSON or as a page, and pages show its message in their forms.
protocol APIErrorConvertible: Error {
    var apiError: APIError { get }
}

extension APIError: APIErrorConvertible {
    var apiError: APIError { self }
}
