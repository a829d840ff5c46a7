import ChatterCore
import ChatterWire

/// The name pages and timelines show for an account, made from what a provider or the person sent.
package enum DisplayName {
    /// A provider sent no usable name (the course API's word for it).
    package static let missing = "Profile NA"

    /// Provider names are shortened to the limit rather than refused: the user cannot change what Google sends.
    /// Every name is cleaned (`DisplayText`) first, since pages show it to other people.
    package static func from(_ name: String) -> String? {
        let trimmed = DisplayText.clean(name)
        guard !trimmed.isEmpty else { return nil }
        return trimmed.exceeds(Limits.nameCharacters) ? String(trimmed.prefix(Limits.nameCharacters - 1)) + "…" : trimmed
    }

    /// Apple's name parts as one display name: given and family name.
    package static func from(_ name: NameParts) -> String? {
        let parts = [name.givenName, name.familyName].compactMap { $0?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : from(parts.joined(separator: " "))
    }

    /// A new account with only its address to go by: its local part is a better name than `missing`.
    package static func from(email: String) -> String {
        String(email.split(separator: "@")[0].prefix(Limits.nameCharacters))
    }
}
