// The course-compatible API. Field names and shapes are fixed by unchanged course clients.

/// `POST /postchatt` body (anonymous posting, off by default).
public struct PostChattRequest: Codable, Sendable, Equatable {
    /// The author's name as the timeline shows it, whatever the poster typed. chatterd refuses more than
    /// `Limits.nameCharacters` characters.
    public var name: String
    /// The chatt's text; chatterd refuses more than `Limits.messageCharacters` characters.
    public var message: String

    /// A post under `name`. chatterd accepts it only when started with `--allow-anonymous-posting`; otherwise it
    /// answers 403.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}

/// `POST /adduser` body: a Google ID token and the OAuth client ID the app obtained it for.
public struct AddUserRequest: Codable, Sendable, Equatable {
    /// The OAuth client ID the app obtained the token for. It must match the token's audience and be one of the
    /// client IDs chatterd was started with (`--google-client-id`).
    public var clientID: String
    /// The Google ID token (a JWT) from Google Sign-In. chatterd checks its signature, issuer, audience and expiry
    /// locally.
    public var idToken: String

    /// A sign-in with `idToken`, which Google issued to `clientID`.
    public init(clientID: String, idToken: String) {
        self.clientID = clientID
        self.idToken = idToken
    }
}

/// `POST /adduser` answer. `lifetime` is seconds from now.
public struct AddUserResponse: Codable, Sendable, Equatable {
    /// The account's display name, from the Google profile; names longer than `Limits.nameCharacters` characters
    /// are shortened.
    public var username: String
    /// The course API's session token: send it as `chatterID` with `/postauth`. It cannot be refreshed; sign in
    /// again when it ends.
    public var chatterID: String
    /// Seconds from this answer until `chatterID` stops working.
    public var lifetime: Int

    /// An answer as chatterd sends it; apps receive it from `ChatterClient.addUser(clientID:idToken:)`.
    public init(username: String, chatterID: String, lifetime: Int) {
        self.username = username
        self.chatterID = chatterID
        self.lifetime = lifetime
    }
}

/// `POST /postauth` body: the chatt is posted under the session's user, whatever the client claims.
public struct PostAuthRequest: Codable, Sendable, Equatable {
    /// The `chatterID` from `/adduser`: the chatt is posted under its user.
    public var chatterID: String
    /// The chatt's text; chatterd refuses more than `Limits.messageCharacters` characters.
    public var message: String

    /// A post of `message` by the session `chatterID`. A `chatterID` that is unknown or over answers 401.
    public init(chatterID: String, message: String) {
        self.chatterID = chatterID
        self.message = message
    }
}

/// One row of `GET /getchatts`: encoded as the array `[name, message, id, time]`, as course clients expect.
public struct ChattRow: Codable, Sendable, Equatable {
    /// The author's display name when the chatt was posted (or the name given with an anonymous post).
    public var name: String
    /// The chatt's text.
    public var message: String
    /// A UUID string.
    public var id: String
    /// An ISO 8601 timestamp (UTC, with fractional seconds).
    public var time: String

    /// A row from its four fields, in the order the course's array has them.
    public init(name: String, message: String, id: String, time: String) {
        self.name = name
        self.message = message
        self.id = id
        self.time = time
    }

    /// Reads the course's shape, the array `[name, message, id, time]`; a JSON object does not decode.
    public init(from decoder: any Decoder) throws {
        var row = try decoder.unkeyedContainer()
        name = try row.decode(String.self)
        message = try row.decode(String.self)
        id = try row.decode(String.self)
        time = try row.decode(String.self)
    }

    /// Writes the course's shape, the array `[name, message, id, time]`.
    public func encode(to encoder: any Encoder) throws {
        var row = encoder.unkeyedContainer()
        try row.encode(name)
        try row.encode(message)
        try row.encode(id)
        try row.encode(time)
    }
}

/// The empty JSON object `{}` that successful posts answer with.
public struct EmptyResponse: Codable, Sendable, Equatable {
    /// The empty object. `ChatterAPI.send` also returns it for a 2xx answer without a body (chatterd's 204s).
    public init() {}
}
