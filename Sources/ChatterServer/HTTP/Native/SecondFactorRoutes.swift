import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// The second factor through the native API: its status, adding an authenticator app, recovery codes,
/// turning it off, and the second step of a sign-in. `SecondFactorService` holds the rules.
struct SecondFactorRoutes {
    let secondFactors: SecondFactorService
    let signIn: SignInService

    func register(on router: some RouterMethods<ChatterRequestContext>, signedIn: some RouterMethods<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.secondStep)) { request, context in
            let body = try await request.decodeJSON(SecondStepRequest.self, context: context)
            let client = context.client(request)
            let flow = try await signIn.completeSecondStep(
                token: body.token, code: body.code, device: body.deviceToken, rememberDevice: body.rememberDevice ?? false, client: client)
            return JSONResponse.make(try await signIn.native(flow, client: client))
        }
        signedIn.get(RouterPath(NativePath.secondFactor)) { _, context in
            JSONResponse.make(try await secondFactors.status(try context.requireSession().user.id))
        }
        signedIn.post(RouterPath(NativePath.secondFactorEnrol)) { _, context in
            let session = try context.requireSession()
            return JSONResponse.make(try await secondFactors.beginEnrolment(session, account: try await secondFactors.accountName(session.user)))
        }
        signedIn.post(RouterPath(NativePath.secondFactorConfirm)) { request, context in
            let body = try await request.decodeJSON(SecondFactorCodeRequest.self, context: context)
            let codes = try await secondFactors.confirmEnrolment(try context.requireSession(), code: body.code, client: context.client(request))
            return JSONResponse.make(RecoveryCodes(recoveryCodes: codes))
        }
        signedIn.post(RouterPath(NativePath.recoveryCodes)) { request, context in
            let body = try await request.decodeJSON(SecondFactorCodeRequest.self, context: context)
            let codes = try await secondFactors.regenerateRecoveryCodes(
                try context.requireSession().user, code: body.code, client: context.client(request))
            return JSONResponse.make(RecoveryCodes(recoveryCodes: codes))
        }
        signedIn.post(RouterPath(NativePath.stepUp)) { request, context in
            let body = try await request.decodeJSON(SecondFactorCodeRequest.self, context: context)
            try await secondFactors.stepUp(try context.requireSession(), code: body.code, client: context.client(request))
            return Response(status: .noContent)
        }
        signedIn.post(RouterPath(NativePath.secondFactorDisable)) { request, context in
            let body = try await request.decodeJSON(SecondFactorCodeRequest.self, context: context)
            try await secondFactors.disable(try context.requireSession().user, code: body.code, client: context.client(request))
            return Response(status: .noContent)
        }
    }
}
