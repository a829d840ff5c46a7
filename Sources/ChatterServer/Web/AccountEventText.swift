import ChatterDomain

/// The account's security events (`AccountService.history`) as the account page says them.
enum AccountEventText {
    static func sentence(_ kind: String) -> String {
        switch AuditLog.Event(rawValue: kind) {
        case .passkeyAdded: "A passkey was added"
        case .passkeyRemoved: "A passkey was removed"
        case .secondFactorEnabled: "Two-step sign-in was turned on"
        case .secondFactorDisabled: "Two-step sign-in was turned off"
        case .recoveryCodeUsed: "A recovery code was used"
        case .recoveryCodesRegenerated: "New recovery codes were made"
        case .passwordChanged: "The password was changed"
        case .passwordReset: "The password was reset with an emailed code"
        case .passwordSet: "A password was set"
        case .emailChanged: "The email address was changed"
        case .signOutAll: "Every session was signed out"
        case .sessionRevoked: "A session was signed out"
        case .adminSecondFactorReset: "The server's operator reset two-step sign-in"
        default: "The account changed (\(kind))"
        }
    }
}
