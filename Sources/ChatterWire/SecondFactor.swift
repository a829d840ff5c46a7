// The second factor (an authenticator app and recovery codes) through the native API.

/// The body of a `second_factor_required` answer (`ErrorBody.secondFactor`): the first factor passed, and
/// the sign-in waits for a code. Send it with the code to `NativePath.secondStep`.
public struct SecondFactorChallenge: Codable, Sendable, Equatable {
    /// Opaque, single-use: names the waiting sign-in. Keep it only until the code is sent.
    public var token: String
    /// Seconds until the waiting sign-in expires; sign in again after.
    public var expiresIn: Int
    /// What completes it: `totp` (the authenticator app's 6-digit code) and `recovery_code`.
    public var methods: [String]

    /// A waiting sign-in as chatterd describes it.
    public init(token: String, expiresIn: Int, methods: [String] = ["totp", "recovery_code"]) {
        self.token = token
        self.expiresIn = expiresIn
        self.methods = methods
    }
}

/// The second step of a sign-in: the waiting sign-in's token and a code.
public struct SecondStepRequest: Codable, Sendable, Equatable {
    /// `SecondFactorChallenge.token`.
    public var token: String
    /// The authenticator app's current 6-digit code, or one of the account's recovery codes.
    public var code: String
    /// The `deviceToken` the device keeps for the address, if any: it is kept rather than replaced.
    public var deviceToken: String?
    /// Skip the step on this device from now on (for the server's `--remember-device` days, or until the
    /// password changes): later sign-ins to the address that send the device token need no code. Only sign-ins
    /// that prove an address (a password, an emailed code) have a device token to remember.
    public var rememberDevice: Bool?

    /// A code for the waiting sign-in `token`.
    public init(token: String, code: String, deviceToken: String? = nil, rememberDevice: Bool? = nil) {
        self.token = token
        self.code = code
        self.deviceToken = deviceToken
        self.rememberDevice = rememberDevice
    }
}

/// A code proving the second factor for an account action (turning it on, off, new recovery codes).
public struct SecondFactorCodeRequest: Codable, Sendable, Equatable {
    /// The authenticator app's current 6-digit code (turning off and new recovery codes also take a recovery code).
    public var code: String

    /// The request carrying `code`.
    public init(code: String) { self.code = code }
}

/// A new authenticator app's secret, to show until its first code confirms it.
public struct TOTPEnrolment: Codable, Sendable, Equatable {
    /// The secret in base32, for typing into an app by hand.
    public var secret: String
    /// The `otpauth://totp/…` key URI apps scan: render it as a QR code (CoreImage's `CIQRCodeGenerator` on Apple
    /// platforms).
    public var uri: String
    /// Always 6.
    public var digits: Int
    /// Seconds per code: always 30.
    public var period: Int
    /// Always `SHA1`, the algorithm every app supports.
    public var algorithm: String

    /// An enrolment as chatterd answers it.
    public init(secret: String, uri: String, digits: Int = 6, period: Int = 30, algorithm: String = "SHA1") {
        self.secret = secret
        self.uri = uri
        self.digits = digits
        self.period = period
        self.algorithm = algorithm
    }
}

/// Ten single-use recovery codes, shown once: each signs in in place of the app's code.
public struct RecoveryCodes: Codable, Sendable, Equatable {
    /// `XXXXX-XXXXX`; case, hyphens and spaces do not matter when typed.
    public var recoveryCodes: [String]

    /// The codes as chatterd answers them.
    public init(recoveryCodes: [String]) { self.recoveryCodes = recoveryCodes }
}

/// Whether the account has a second factor.
public struct SecondFactorStatus: Codable, Sendable, Equatable {
    /// An authenticator app is confirmed: sign-ins other than a passkey's ask for its code.
    public var enabled: Bool
    /// An enrolment was started and waits for its first code.
    public var pending: Bool
    /// Recovery codes not yet used.
    public var recoveryCodesLeft: Int
    /// When it was turned on, as UNIX time (seconds); nil when off.
    public var enabledAt: Double?

    /// A status as chatterd answers it.
    public init(enabled: Bool, pending: Bool, recoveryCodesLeft: Int, enabledAt: Double?) {
        self.enabled = enabled
        self.pending = pending
        self.recoveryCodesLeft = recoveryCodesLeft
        self.enabledAt = enabledAt
    }
}

/// A second-factor code as a person types it, read the one way both chatterd and ChatterKit read it, so that
/// what a form accepts is what the server compares.
public enum SecondFactorCode: Sendable, Equatable {
    /// The authenticator app's six ASCII digits, spaces and hyphens dropped (apps show `123 456`).
    case authenticator(String)
    /// A recovery code: ten symbols of `recoveryAlphabet`, any case, hyphens and spaces dropped, O read as 0
    /// and I or L as 1 (Crockford's rules).
    case recovery(String)

    /// Crockford's base32: no I, L, O or U to misread.
    public static let recoveryAlphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    /// Symbols in a recovery code.
    public static let recoveryLength = 10

    /// The code `typed` is, or nil when it is neither kind (any non-ASCII character, a wrong length).
    public init?(_ typed: String) {
        var kept: [UInt8] = []
        for scalar in typed.unicodeScalars where scalar != " " && scalar != "-" {
            guard scalar.isASCII, kept.count < Self.recoveryLength else { return nil }
            kept.append(UInt8(scalar.value))
        }
        if kept.count == 6, kept.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            self = .authenticator(String(decoding: kept, as: UTF8.self))
            return
        }
        guard kept.count == Self.recoveryLength else { return nil }
        var symbols: [UInt8] = []
        for byte in kept {
            let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
            switch upper {
            case UInt8(ascii: "O"): symbols.append(UInt8(ascii: "0"))
            case UInt8(ascii: "I"), UInt8(ascii: "L"): symbols.append(UInt8(ascii: "1"))
            case let symbol where Self.recoveryAlphabet.contains(symbol): symbols.append(symbol)
            default: return nil
            }
        }
        self = .recovery(String(decoding: symbols, as: UTF8.self))
    }
}
