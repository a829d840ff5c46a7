import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Hummingbird

/// Password-less sign-in with an emailed code (F3).
struct EmailCodeRoutes {
    let emailCodes: EmailCodeFlow
    let signIn: SignInService

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.emailCode)) { request, context in
            let body = try await request.decodeJSON(EmailCodeRequest.self, context: context)
            let answer = try await emailCodes.send(
                to: try EmailCodeFlow.address(body.email), purpose: .signIn, client: context.client(request), deviceToken: body.deviceToken)
            return JSONResponse.make(answer.response, status: .accepted)
        }
        router.post(RouterPath(NativePath.emailVerify)) { request, context in
            let body = try await request.decodeJSON(EmailVerifyRequest.self, context: context)
            let email = try EmailCodeFlow.address(body.email)
            let client = context.client(request)
            let user = try await emailCodes.signIn(email: email, code: body.code, client: client)
            return JSONResponse.make(try await signIn.native(SignInFlow(user: user, method: .email, email: email, device: body.deviceToken), client: client))
        }
    }
}
