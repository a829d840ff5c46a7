import ChatterCore
import ChatterWire

/// Whether a returning user's sign-in brings anything to store. Most sign-ins bring nothing new, and
/// `signIn` answers those with one read instead of a transaction.
package struct SignInChange {
    package let isNone: Bool

    /// `email` and `emailVerified`: what the identity holds now.
    package init(claims: IdentityClaims, user: User, email: String?, emailVerified: Bool) {
        let sameName = claims.displayName == nil || claims.displayName == user.displayName
        var nothingNewInName = true
        if let offered = claims.name, !offered.isEmpty { nothingNewInName = user.name.map { Self.covers($0, offered) } ?? false }
        let sameEmail = claims.email == nil || (claims.email == email && claims.emailVerified == emailVerified)
        isNone = sameName && nothingNewInName && sameEmail
    }

    /// Whether `stored` already holds every non-empty part of `offered`.
    package static func covers(_ stored: NameParts, _ offered: NameParts) -> Bool {
        let pairs = [
            (stored.givenName, offered.givenName), (stored.familyName, offered.familyName), (stored.middleName, offered.middleName),
            (stored.nickname, offered.nickname), (stored.namePrefix, offered.namePrefix), (stored.nameSuffix, offered.nameSuffix),
        ]
        return pairs.allSatisfy { stored, offered in (offered ?? "").isEmpty || stored == offered }
    }
}
