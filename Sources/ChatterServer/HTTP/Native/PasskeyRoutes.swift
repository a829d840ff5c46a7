import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Hummingbird

/// Passkeys on the native API: adding one to the signed-in account, signing up with one after an emailed
/// code, signing in with one, confirming it is you with one, and listing, renaming and removing the account's passkeys.
struct PasskeyRoutes {
    let passkeys: PasskeyService
    let signIn: SignInService

    func register(on router: some RouterMethods<ChatterRequestContext>, signedIn: some RouterMethods<ChatterRequestContext>) {
        signedIn.post(RouterPath(NativePath.passkeyRegisterOptions)) { request, context in
            JSONResponse.make(try await passkeys.registrationOptions(for: try context.requireSession(), client: context.client(request)))
        }
        signedIn.post(RouterPath(NativePath.passkeyRegister)) { request, context in
            let body = try await request.decodeJSON(PasskeyRegistrationRequest.self, context: context)
            let user = try context.requireSession().user
            let passkey = try await passkeys.register(body, purpose: .register, user: user, client: context.client(request))
            return JSONResponse.make(PasskeyService.info(passkey), status: .created)
        }
        router.post(RouterPath(NativePath.passkeySignUpOptions)) { request, context in
            let body = try await request.decodeJSON(PasskeySignUpOptionsRequest.self, context: context)
            return JSONResponse.make(try await passkeys.signUpOptions(email: body.email, code: body.code, client: context.client(request)))
        }
        router.post(RouterPath(NativePath.passkeySignUp)) { request, context in
            let body = try await request.decodeJSON(PasskeyRegistrationRequest.self, context: context)
            let client = context.client(request)
            let (user, email) = try await passkeys.signUp(body, client: client)
            return JSONResponse.make(try await signIn.native(SignInFlow(user: user, method: .passkey, email: email, secondFactor: .passkey), client: client))
        }
        router.post(RouterPath(NativePath.passkeySignInOptions)) { request, context in
            JSONResponse.make(try await passkeys.signInOptions(client: context.client(request)))
        }
        router.post(RouterPath(NativePath.passkeySignIn)) { request, context in
            let body = try await request.decodeJSON(PasskeySignInRequest.self, context: context)
            let client = context.client(request)
            let (user, account) = try await passkeys.signIn(body, client: client)
            return JSONResponse.make(
                try await signIn.native(SignInFlow(user: user, method: .passkey, secondFactor: .passkey, account: account), client: client))
        }
        signedIn.post(RouterPath(NativePath.passkeyStepUpOptions)) { request, context in
            JSONResponse.make(try await passkeys.stepUpOptions(for: try context.requireSession(), client: context.client(request)))
        }
        signedIn.post(RouterPath(NativePath.passkeyStepUp)) { request, context in
            let body = try await request.decodeJSON(PasskeySignInRequest.self, context: context)
            try await passkeys.stepUp(body, session: try context.requireSession(), client: context.client(request))
            return Response(status: .noContent)
        }
        signedIn.get(RouterPath(NativePath.passkeys)) { _, context in
            JSONResponse.make(try await passkeys.list(try context.requireSession().user))
        }
        signedIn.patch(RouterPath(NativePath.passkeys + "/:id")) { request, context in
            let body = try await request.decodeJSON(PasskeyRenameRequest.self, context: context)
            let id = context.parameters.get("id") ?? ""
            return JSONResponse.make(try await passkeys.rename(id, to: body.name, user: try context.requireSession().user, client: context.client(request)))
        }
        signedIn.delete(RouterPath(NativePath.passkeys + "/:id")) { request, context in
            try await passkeys.delete(context.parameters.get("id") ?? "", session: try context.requireSession(), client: context.client(request))
            return Response(status: .noContent)
        }
    }
}
