import Foundation

/// How chatterd writes wire types as JSON: sorted keys (stable bytes for caches and tests), slashes as
/// they are. The timeline caches answers in this form; the HTTP layer writes every other answer with it.
package enum WireJSON {
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
