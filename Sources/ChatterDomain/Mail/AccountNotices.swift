import ChatterCore
import Foundation
import Logging

/// Mail telling an account's owner about a change to how they sign in, which they should know of even
/// when they did not make it, sent to the address the account verified: what happened, from which device,
/// and what to do if it was not them. Never a secret. At most `perHour` an hour per account, counted in one
/// store step; the first past the limit is one mail saying more changes were made and where to read them
/// (the account's history keeps every one), so a flood neither fills the inbox nor hides that something
/// happened. A notice that cannot be sent is logged, never a reason to fail what it reports.
package struct AccountNotices: Sendable {
    package let users: any UserRepository
    /// Counts each account's notices; nil (`chatterd admin`, one at a time by an operator) counts none.
    package var limits: (any RateLimitRepository)? = nil
    package let mail: any MailTransport
    package let sender: String
    package let logger: Logger
    package var now: @Sendable () -> Date = Date.init

    package static let perHour = 10

    package func send(_ notice: AccountNotice, to userID: UUID, client: ClientInfo? = nil) async {
        do {
            var notice = notice
            if let limits {
                let count = try await limits.hit(RateLimitKeys.notices(userID), window: 3600, at: now())
                if count > Self.perHour + 1 {
                    logger.warning("account notices over their hourly limit; not sent", metadata: ["user": "\(userID.text)", "notice": "\(notice.kind)"])
                    return
                }
                if count == Self.perHour + 1 { notice = .moreChanges }
            }
            guard let address = try await users.identities(of: userID).first(where: { $0.emailVerified && $0.email != nil })?.email else { return }
            try await deliver(notice, to: address, client: client)
        } catch {
            logger.error("sending an account notice failed", metadata: ["error": "\(error)"])
        }
    }

    /// A notice to an address the account no longer has (the one an address change replaced), counted with
    /// the account's others.
    package func send(_ notice: AccountNotice, toFormer address: String, of userID: UUID, client: ClientInfo?) async {
        do {
            if let limits, try await limits.hit(RateLimitKeys.notices(userID), window: 3600, at: now()) > Self.perHour { return }
            try await deliver(notice, to: address, client: client)
        } catch {
            logger.error("sending an account notice failed", metadata: ["error": "\(error)"])
        }
    }

    /// The account's last notice, to the address read before it went: not counted, since its counters went
    /// with it.
    package func sendDeleted(to address: String, client: ClientInfo?) async {
        do {
            try await deliver(.accountDeleted, to: address, client: client)
        } catch {
            logger.error("sending an account notice failed", metadata: ["error": "\(error)"])
        }
    }

    private func deliver(_ notice: AccountNotice, to address: String, client: ClientInfo?) async throws {
        try await mail.send(MailMessage(from: sender, to: address, subject: notice.subject, body: notice.body(from: client) + "\n"))
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        users: any UserRepository, limits: (any RateLimitRepository)? = nil, mail: any MailTransport, sender: String, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.users = users
        self.limits = limits
        self.mail = mail
        self.sender = sender
        self.logger = logger
        self.now = now
    }
}

/// What an owner is told of: a closed set, each with its own words.
package enum AccountNotice: Sendable, Equatable {
    case passkeyAdded(name: String)
    case passkeyRemoved(name: String)
    case secondFactorOn
    case secondFactorOff
    case recoveryCodeUsed(left: Int)
    case passwordSet
    case passwordChanged
    case passwordReset
    case accountDeleted
    case operatorResetSecondFactor
    /// The address the account signs in with by emailed code changed; `to` is the new one, masked.
    case emailChanged(to: String)
    /// The first notice past the hourly limit, in its place.
    case moreChanges

    package var kind: String { "\(self)".prefix { $0 != "(" }.description }

    package var subject: String {
        switch self {
        case .passkeyAdded: "A passkey was added to your Chatter account"
        case .passkeyRemoved: "A passkey was removed from your Chatter account"
        case .secondFactorOn: "A second factor is on for your Chatter account"
        case .secondFactorOff: "The second factor is off for your Chatter account"
        case .recoveryCodeUsed: "A recovery code was used for your Chatter account"
        case .passwordSet: "A password was set for your Chatter account"
        case .passwordChanged: "Your Chatter password was changed"
        case .passwordReset: "Your Chatter password was reset"
        case .accountDeleted: "Your Chatter account was deleted"
        case .operatorResetSecondFactor: "Two-step sign-in was reset for your Chatter account"
        case .emailChanged: "The email address of your Chatter account was changed"
        case .moreChanges: "More changes were made to your Chatter account"
        }
    }

    /// What happened, from which device, and what to do if it was not the owner.
    package func body(from client: ClientInfo?) -> String {
        let what: String
        let otherwise: String
        switch self {
        case .passkeyAdded(let name):
            what = "A passkey (\(DisplayText.clean(name))) was added to your Chatter account; it signs in by itself."
            otherwise = "If this was not you, sign in, remove it from your account page, and sign out everywhere."
        case .passkeyRemoved(let name):
            what = "A passkey (\(DisplayText.clean(name))) was removed from your Chatter account."
            otherwise = "If this was not you, sign in, sign out everywhere, and add your passkey again."
        case .secondFactorOn:
            what = "An authenticator app was added to your Chatter account; signing in now asks for its code."
            otherwise = "If this was not you, reset your password and contact the operator."
        case .secondFactorOff:
            what = "The authenticator app and recovery codes were removed from your Chatter account."
            otherwise = "If this was not you, reset your password and contact the operator."
        case .recoveryCodeUsed(let left):
            what = "One of your recovery codes was used for your Chatter account; \(left) are left."
            otherwise = "If this was not you, reset your password and turn the second factor off and on again."
        case .passwordSet:
            what = "A password was set for your Chatter account; it now signs in with it too."
            otherwise = "If this was not you, reset your password and sign out everywhere."
        case .passwordChanged:
            what = "The password of your Chatter account was changed, and its other sessions were signed out."
            otherwise = "If this was not you, reset your password with the emailed code and contact the operator."
        case .passwordReset:
            what = "The password of your Chatter account was reset, and every session was signed out."
            otherwise = "If this was not you, reset it again at once and contact the operator; with two-step sign-in on, a mailbox alone is not enough."
        case .accountDeleted:
            what = "Your Chatter account and everything it held were deleted."
            otherwise = "If this was not you, contact the operator at once."
        case .operatorResetSecondFactor:
            what =
                "The server's operator removed the authenticator app and recovery codes from your Chatter account, as asked. Turn two-step sign-in on again from your account."
            otherwise = "If you did not ask for this, contact the operator."
        case .emailChanged(let to):
            what = "Your Chatter account now signs in with emailed codes sent to \(to), and no longer to the address it had before."
            otherwise = "If this was not you, contact the operator at once: the new address's owner can sign in to the account."
        case .moreChanges:
            what =
                "More changes to how your Chatter account signs in were made this hour than are mailed one by one. Sign in and read your account's history to see each."
            otherwise = "If they were not yours, sign out everywhere, remove what you do not know, and contact the operator."
        }
        return "\(what)\n\nFrom: \(Self.device(client))\n\n\(otherwise)"
    }

    /// The device as the request named it: a short name for its browser or app (never the client's own words,
    /// which would put a stranger's text in a mail from the server) and its address; nil: the server's operator.
    package static func device(_ client: ClientInfo?) -> String {
        guard let client else { return "the server's operator" }
        let agent = client.userAgent.map { UserAgentName.family($0) ?? "an unnamed browser or app" }
        let ip = client.ip.map { String($0.prefix(64)) }
        switch (agent, ip) {
        case (let agent?, let ip?): return "\(agent), at \(ip)"
        case (let agent?, nil): return agent
        case (nil, let ip?): return "an unnamed browser or app, at \(ip)"
        case (nil, nil): return "an unnamed browser or app"
        }
    }
}
