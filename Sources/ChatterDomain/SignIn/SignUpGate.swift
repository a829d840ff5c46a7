import ChatterCore

/// Who may create an account. An operator that names apps (`--app-attest-sign-up`) lets only installs of them that
/// App Attest vouched for create one: bot protection where a CAPTCHA cannot run. Accounts that exist sign in on
/// every surface as before. It is checked where accounts are created (`UserRepository.signIn`), so a surface that
/// cannot attest (the pages, the course API) cannot be the way around it.
package struct SignUpGate: Sendable, Equatable {
    /// The apps whose attested installs may create accounts; empty: anyone may.
    package var attestedApps: Set<String>

    package init(attestedApps: Set<String> = []) {
        self.attestedApps = attestedApps
    }

    /// Whether `client` may create an account.
    package func admits(_ client: ClientInfo) -> Bool {
        attestedApps.isEmpty || client.attested.map { attestedApps.contains($0.appID) } == true
    }
}
