import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// Email and password (F2) through the native API; `PasswordFlow` holds the rules.
struct PasswordRoutes {
    let passwords: PasswordFlow
    let signIn: SignInService

    func register(on router: some RouterMethods<ChatterRequestContext>, signedIn: some RouterMethods<ChatterRequestContext>) {
        router.get(RouterPath(NativePath.passwordPolicy)) { _, _ in JSONResponse.make(passwords.rules.policy) }
        router.post(RouterPath(NativePath.passwordSignUp)) { request, context in
            let body = try await request.decodeJSON(PasswordSignUpRequest.self, context: context)
            let client = context.client(request)
            let (user, email) = try await passwords.signUp(
                email: body.email, password: body.password, displayName: body.displayName, code: body.code, client: client)
            return JSONResponse.make(try await signIn.native(SignInFlow(user: user, method: .password, email: email), client: client))
        }
        router.post(RouterPath(NativePath.passwordSignIn)) { request, context in
            let body = try await request.decodeJSON(PasswordSignInRequest.self, context: context)
            let client = context.client(request)
            let (user, email) = try await passwords.signIn(email: body.email, password: body.password, deviceToken: body.deviceToken, client: client)
            return JSONResponse.make(try await signIn.native(SignInFlow(user: user, method: .password, email: email, device: body.deviceToken), client: client))
        }
        router.post(RouterPath(NativePath.passwordReset)) { request, context in
            let body = try await request.decodeJSON(PasswordResetRequest.self, context: context)
            let client = context.client(request)
            let (user, email) = try await passwords.reset(email: body.email, newPassword: body.newPassword, code: body.code, client: client)
            return JSONResponse.make(try await signIn.native(SignInFlow(user: user, method: .password, email: email), client: client))
        }
        signedIn.post(RouterPath(NativePath.passwordChange)) { request, context in
            let session = try context.requireSession()
            let body = try await request.decodeJSON(PasswordChangeRequest.self, context: context)
            try await passwords.change(session, current: body.currentPassword, new: body.newPassword, client: context.client(request))
            return Response(status: .noContent)
        }
    }
}
