import ChatterCore
import ChatterDomain
import ChatterWire
import HTTPTypes
import Hummingbird

/// Checks the App Attest assertion a sign-in carries (`App-Attest-Assertion`), once, before its route: one that
/// passes sets `context.attested`, which the session it starts records and the sign-up gate reads; one that fails
/// refuses the request (`invalid_app_attest`), since a client that sent one meant to be vouched for. It runs after
/// `DPoPMiddleware`, as the assertion covers the request's DPoP key. Only the POSTs of `AppAttestAssertion.routes`
/// (sign-ins and sign-ups) read it, so an assertion spends nothing elsewhere and no browser route (a web-session
/// redemption) is labelled. It is installed only while the operator names apps (`ChatterApp`): a server that stopped
/// accepting App Attest ignores the header, so apps that still send it keep signing in, and other servers' requests
/// pass no extra middleware.
struct AppAttestMiddleware: RouterMiddleware {
    typealias Context = ChatterRequestContext
    static let header = HTTPField.Name(AppAttestAssertion.header)!
    let appAttest: AppAttestService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[Self.header], request.method == .post, AppAttestAssertion.routes.contains(request.uri.path)
        else {
            return try await next(request, context)
        }
        guard request.headers[values: Self.header].count == 1 else {
            throw AppAttestError.rejected(.format, "the request carries more than one App-Attest-Assertion header")
        }
        var context = context
        context.attested = try await appAttest.vouch(header, thumbprint: context.proof?.thumbprint)
        return try await next(request, context)
    }
}
