/// A value the client sent that no rule accepts, whatever the route.
public enum InvalidInput: Error, Equatable {
    /// `field` is longer than `limit` characters.
    case tooLong(field: String, limit: Int)
    /// One of Apple's name parts is longer than `limit` characters.
    case namePartTooLong(limit: Int)
    /// Sign in with Apple's `user` is not the Apple ID its identity token names.
    case appleUserMismatch
}

extension String {
    /// Length as people count it (grapheme clusters), which is how limits are stated.
    package func exceeds(_ limit: Int) -> Bool { count > limit }
}
