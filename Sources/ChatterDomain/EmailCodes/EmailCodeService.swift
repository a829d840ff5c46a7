import ChatterCore
import ChatterWire
import Crypto
import Foundation
import Logging

/// Emailed one-time codes: 6 digits, 10 minutes, single use, 5 guesses, a resend cooldown,
/// per-address and per-IP limits, and the same answer whether or not the address has an account.
public struct EmailCodeService: Sendable {
    public struct Limits: Sendable {
        public var lifetime: Double = 600
        public var maximumGuesses = 5
        public var cooldown: Double = 60
        /// Codes per address per hour, and per client network (`ClientInfo.limitKeys`) per hour.
        public var perAddressPerHour = 5
        public var perIPPerHour = 20
        /// Unexpired codes one address may have at once, whatever asked for them: room for a stranger's hourly
        /// quota and the owner's devices besides, but never a pile of codes to guess against.
        public var maximumLive = 10
        public init() {}
    }

    public enum Failure: Error, Equatable {
        /// Too many requests: retry after this many seconds.
        case limited(retryAfter: Int)
        /// A code went to this address moments ago (the cooldown): it may still be on its way.
        case coolingDown(retryAfter: Int)
        /// Wrong, expired, used up or never sent: the same answer for each, so guessers learn nothing.
        case invalidCode
    }

    let store: any EmailCodeRepository & RateLimitRepository
    package let mail: any MailTransport
    package let hasher: EmailCodeHasher
    public let limits: Limits
    package let sender: String
    package let now: @Sendable () -> Date
    package let logger: Logger

    package init(
        store: any EmailCodeRepository & RateLimitRepository, mail: any MailTransport, hasher: EmailCodeHasher, limits: Limits = Limits(),
        sender: String, now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.store = store
        self.mail = mail
        self.hasher = hasher
        self.limits = limits
        self.sender = sender
        self.now = now
        self.logger = logger
    }

    /// Sends a fresh code to `email` (already normalized). Earlier codes stay valid: a stranger asking for
    /// a code cancels nothing. A recognised `device` draws on its own allowance, so requests from elsewhere
    /// never stop the owner's device from getting a code. Every limit is counted before it is checked.
    public func send(to email: String, purpose: Purpose, client: ClientInfo, device: DeviceTokens.Device? = nil) async throws -> Sent {
        let instant = now()
        let scope = device.map { "device:\($0.key)" } ?? "address"
        if try await store.hit(RateLimitKeys.emailCodes(scope: scope, email: email), window: 3600, at: instant) > limits.perAddressPerHour {
            throw Failure.limited(retryAfter: 3600)
        }
        for (index, network) in client.limitKeys.enumerated() where device == nil {
            guard
                try await store.hit(RateLimitKeys.emailCodeNetwork(network), window: 3600, at: instant)
                    <= ClientNetwork.limit(limits.perIPPerHour, widenedFor: index)
            else {
                throw Failure.limited(retryAfter: 3600)
            }
        }
        let code = Self.generateCode()
        let record = EmailCodeRecord(
            codeHash: hasher.hash(code, email: email), expiresAt: instant.addingTimeInterval(limits.lifetime), guesses: 0, sentAt: instant)
        let wait = try await ChatterMetrics.database("store_email_code") {
            try await store.storeEmailCode(record, for: email, scope: scope, cooldown: limits.cooldown, maximumLive: limits.maximumLive)
        }
        if let wait {
            throw Failure.coolingDown(retryAfter: Int(wait.rounded(.up)))
        }
        let minutes = Int(limits.lifetime / 60)
        let message = MailMessage(
            from: sender, to: email, subject: "Your Chatter code",
            body: "\(purpose.sentence) \(code)\n\nIt expires in \(minutes) minutes and works once. If you did not ask for it, ignore this message.\n",
            code: code)
        var delivery = Delivery.sent
        do {
            try await mail.send(message)
        } catch {
            // The code is stored either way; the failure is the mail server's answer about the address (or
            // about itself), never about an account, so the pages may show it. Logged for the operator.
            logger.error("sending a code failed", metadata: ["error": "\(error)"])
            delivery = (error as? MailError)?.recipientRefused == true ? .recipientRefused : .failed
        }
        return Sent(response: EmailCodeResponse(resendAfter: Int(limits.cooldown), expiresIn: Int(limits.lifetime)), delivery: delivery)
    }

    /// What `send` did: the native API's answer, and whether the mail server took the message.
    public struct Sent: Sendable, Equatable {
        public var response: EmailCodeResponse
        public var delivery: Delivery
    }

    /// The mail server's answer. The native API answers 202 whatever it is (the code is stored, and the app
    /// offers a resend); the pages show a refusal as one.
    public enum Delivery: Sendable, Equatable {
        case sent
        /// Refused for good: the address is what to fix.
        case recipientRefused
        /// Not delivered for another reason (the mail server unreachable): try again later.
        case failed
    }

    /// Consumes `email`'s code when `code` is one of its live codes. The guess is counted before anything
    /// is compared, and only the request that removes the code succeeds, so neither the guess limit nor
    /// single use depends on timing.
    public func redeem(_ code: String, for email: String) async throws {
        let candidates = try await ChatterMetrics.database("take_code_guess") {
            try await store.takeGuess(for: email, maximumGuesses: limits.maximumGuesses, at: now())
        }
        let digits = code.trimmingCharacters(in: .whitespaces)
        guard !candidates.isEmpty, digits.utf8.count == 6, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw Failure.invalidCode
        }
        let hash = hasher.hash(digits, email: email)
        // Every candidate is compared, so timing does not tell which one matched.
        let matches = candidates.reduce(false) { matched, candidate in constantTimeEqual(candidate, hash) || matched }
        guard matches, try await store.consumeEmailCode(for: email, codeHash: hash) else { throw Failure.invalidCode }
    }

    public enum Purpose: Sendable {
        case signIn, passwordReset, addressChange

        package var sentence: String {
            switch self {
            case .signIn: "Your Chatter sign-in code is"
            case .passwordReset: "Your Chatter code to choose a new password is"
            case .addressChange: "Your Chatter code to sign in with this address from now on is"
            }
        }
    }

    /// Uniform over 000000–999999 from the system CSPRNG.
    package static func generateCode() -> String {
        var rng = SystemRandomNumberGenerator()
        let value = Int.random(in: 0..<1_000_000, using: &rng)
        return String(value).leftPadded(to: 6)
    }

}

/// The emailed codes' hashes, keyed: a million codes are few enough that an unkeyed hash in a copy of the
/// database (a backup, an injection) gives up every live code by trying them all. The key is derived from
/// the sealing key (`SecretBox`), kept outside the database.
package struct EmailCodeHasher: Sendable {
    package let key: SymmetricKey

    package func hash(_ code: String, email: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array("\(email)\n\(code)".utf8), using: key))
    }
}

extension String {
    package func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
