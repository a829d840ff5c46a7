import ChatterWire
import Foundation
import Hummingbird

/// Sign in with Google and with Apple through the native API.
struct ProviderRoutes {
    let providers: ProviderSignIn
    let signIn: SignInService
    let appleTokens: AppleTokens

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.google)) { request, context in
            let body = try await request.decodeJSON(GoogleSignInRequest.self, context: context)
            let client = context.client(request)
            let claims = try await providers.google(body.idToken, clientID: body.clientID, nonce: .raw(body.nonce), client: client)
            return JSONResponse.make(try await signIn.native(try await signIn.account(claims), method: .google, client: client))
        }
        router.post(RouterPath(NativePath.apple)) { request, context in
            let body = try await request.decodeJSON(AppleSignInRequest.self, context: context)
            let client = context.client(request)
            let (claims, identity) = try await providers.apple(
                body.identityToken, rawNonce: body.rawNonce, name: body.name, user: body.user, authorizationCode: body.authorizationCode,
                client: client)
            let user = try await signIn.account(claims)
            await appleTokens.keep(code: body.authorizationCode, for: identity, userID: user.id)
            return JSONResponse.make(try await signIn.native(user, method: .apple, client: client))
        }
    }
}
