import ChatterCore
import Foundation

/// Who may use the admin pages: an operator (`AdminService.requireOperator`) whose account has a second
/// factor and whose session passed it (at sign-in or a step-up, however long ago: a remembered device, an
/// app's hand-off or a cookie from before enrolling has not), unless `--admin-second-factor off` (for
/// development; chatterd says so at start). A change to someone's account takes a recent step-up (`StepUp`).
/// `chatterd admin` runs on the server itself and asks neither.
package struct OperatorAccess: Sendable {
    package let admin: AdminService
    package let secondFactors: any SecondFactorRepository
    package let stepUp: StepUp
    package let requiresSecondFactor: Bool

    package func require(_ session: AuthenticatedSession, changing: Bool) async throws {
        try await admin.requireOperator(session.user)
        guard requiresSecondFactor else { return }
        guard try await secondFactors.hasSecondFactor(userID: session.user.id) else { throw AdminService.Failure.operatorWithoutSecondFactor }
        if changing { try await stepUp.require(session) } else { try await stepUp.requireEver(session) }
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(admin: AdminService, secondFactors: any SecondFactorRepository, stepUp: StepUp, requiresSecondFactor: Bool) {
        self.admin = admin
        self.secondFactors = secondFactors
        self.stepUp = stepUp
        self.requiresSecondFactor = requiresSecondFactor
    }
}
