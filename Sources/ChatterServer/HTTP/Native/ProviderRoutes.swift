import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Hummingbird

/// Sign in with Google and with Apple through the native API.
struct ProviderRoutes {
    let providers: ProviderSignIn
    let signIn: SignInService

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.google)) { request, context in
            let body = try await request.decodeJSON(GoogleSignInRequest.self, context: context)
            let client = context.client(request)
            let flow = try await providers.google(body.idToken, clientID: body.clientID, nonce: .raw(body.nonce), client: client)
            return JSONResponse.make(try await signIn.native(flow, client: client))
        }
        router.post(RouterPath(NativePath.apple)) { request, context in
            let body = try await request.decodeJSON(AppleSignInRequest.self, context: context)
            let client = context.client(request)
            let flow = try await providers.apple(
                body.identityToken, rawNonce: body.rawNonce, name: body.name, user: body.user, authorizationCode: body.authorizationCode,
                client: client)
            return JSONResponse.make(try await signIn.native(flow, client: client))
        }
    }
}
