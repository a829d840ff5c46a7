import ChatterCore
import ChatterDomain
import ChatterWire
import Foundation
import Hummingbird

/// App Attest on the native API: a challenge per attempt, and an install's key attested over it.
struct AppAttestRoutes {
    let appAttest: AppAttestService

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.appAttestChallenge)) { request, context in
            let challenge = try await appAttest.challenge(client: context.client(request))
            return JSONResponse.make(AppAttestChallengeResponse(challenge: challenge, expiresIn: Int(AppAttestService.challengeLifetime)))
        }
        router.post(RouterPath(NativePath.appAttestKeys)) { request, context in
            let body = try await request.decodeJSON(AppAttestKeyRequest.self, context: context)
            let key = try await appAttest.register(keyID: body.keyId, attestation: body.attestation, challenge: body.challenge)
            return JSONResponse.make(
                AppAttestKeyResponse(keyId: Base64URL.encode(key.keyID), appId: key.appID, environment: key.environment), status: .created)
        }
    }
}
