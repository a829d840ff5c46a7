public enum StoreError: Error, CustomStringConvertible, Equatable {
    /// The database was written by a newer chatterd; opening it could corrupt data that version relies on.
    case newerSchema(found: Int, supported: Int)
    case corruptRow(String)
    /// The row names a user that no longer exists (deleted while the request ran).
    case userGone
    /// An operator disabled the account: it cannot sign in.
    case accountDisabled
    /// fsync of the database's log failed (errno): the write is committed but may not survive a power loss.
    case syncFailed(Int32)

    public var description: String {
        switch self {
        case .newerSchema(let found, let supported):
            "the database has schema version \(found), but this chatterd understands versions up to \(supported); run a newer chatterd or restore a backup"
        case .corruptRow(let what):
            "a stored row could not be read: \(what)"
        case .userGone:
            "the user no longer exists"
        case .accountDisabled:
            "the account is disabled"
        case .syncFailed(let code):
            "fsync of the database log failed (errno \(code))"
        }
    }
}
