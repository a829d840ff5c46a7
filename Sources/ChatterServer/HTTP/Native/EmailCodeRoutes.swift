import ChatterWire
import Foundation
import Hummingbird

/// Password-less sign-in with an emailed code (F3).
struct EmailCodeRoutes {
    let services: ChatterServices

    func register(on router: Router<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.emailCode)) { request, context in try await requestCode(request, context) }
        router.post(RouterPath(NativePath.emailVerify)) { request, context in try await verify(request, context) }
    }

    func requestCode(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(EmailCodeRequest.self, context: context)
        let email = try EmailCodeFlow.address(body.email)
        let answer = try await EmailCodeFlow(services: services).send(
            to: email, purpose: .signIn, client: context.client(request), deviceToken: body.deviceToken)
        return JSONResponse.make(answer, status: .accepted)
    }

    func verify(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(EmailVerifyRequest.self, context: context)
        let email = try EmailCodeFlow.address(body.email)
        let client = context.client(request)
        let user = try await EmailCodeFlow(services: services).signIn(email: email, code: body.code, client: client)
        return try await SignIn(services: services).start(user, method: "email", client: client, deviceFor: email)
    }
}
