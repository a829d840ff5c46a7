import Hummingbird

extension TokenRejected {
    /// A refused ID token as the client sees it: 401 naming the failed check (and, for a wrong audience,
    /// the audience the token carried), or 503 when the provider's keys could not be fetched at all.
    func apiError(provider: String) -> APIError {
        if keysUnavailable {
            return APIError(.serviceUnavailable, "keys_unavailable", "\(provider)'s signing keys could not be fetched; try again shortly.")
        }
        return APIError(
            .unauthorized, "invalid_token", "The ID token was rejected: \(reason)",
            check: check.rawValue, audience: check == .audience ? audience : nil)
    }
}

extension ChatterRequestContext {
    /// The caller as the audit log and session list record it: the User-Agent cleaned (`DisplayText`), since
    /// the session lists show it to the account's owner and to operators, and at most 256 Unicode scalars.
    func client(_ request: Request) -> ClientInfo {
        ClientInfo(
            ip: clientIP, userAgent: request.headers[.userAgent].map { Self.label(DisplayText.clean(String($0.unicodeScalars.prefix(512)))) },
            network: clientIP.map { ClientNetwork.key($0, ipv6Prefix: ipv6Prefix) }, wideNetwork: clientIP.flatMap(ClientNetwork.wideKey))
    }

    static func label(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.prefix(256))
        return String(scalars)
    }
}
