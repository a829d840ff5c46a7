/// Whether a ceremony needs the authenticator to have verified the user (biometrics or PIN), as
/// `userVerification` in the options says.
public enum UserVerification: String, Sendable, Codable, CaseIterable {
    case required, preferred, discouraged
}
