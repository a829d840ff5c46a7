// The course-compatible API. Field names and shapes are fixed by unchanged course clients.

/// `POST /postchatt` body (anonymous posting, off by default).
public struct PostChattRequest: Codable, Sendable, Equatable {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}

/// `POST /adduser` body: a Google ID token and the OAuth client ID the app obtained it for.
public struct AddUserRequest: Codable, Sendable, Equatable {
    public var clientID: String
    public var idToken: String

    public init(clientID: String, idToken: String) {
        self.clientID = clientID
        self.idToken = idToken
    }
}

/// `POST /adduser` answer. `lifetime` is seconds from now.
public struct AddUserResponse: Codable, Sendable, Equatable {
    public var username: String
    public var chatterID: String
    public var lifetime: Int

    public init(username: String, chatterID: String, lifetime: Int) {
        self.username = username
        self.chatterID = chatterID
        self.lifetime = lifetime
    }
}

/// `POST /postauth` body: the chatt is posted under the session's user, whatever the client claims.
public struct PostAuthRequest: Codable, Sendable, Equatable {
    public var chatterID: String
    public var message: String

    public init(chatterID: String, message: String) {
        self.chatterID = chatterID
        self.message = message
    }
}

/// One row of `GET /getchatts`: encoded as the array `[name, message, id, time]`, as course clients expect.
public struct ChattRow: Codable, Sendable, Equatable {
    public var name: String
    public var message: String
    /// A UUID string.
    public var id: String
    /// An ISO 8601 timestamp (UTC, with fractional seconds).
    public var time: String

    public init(name: String, message: String, id: String, time: String) {
        self.name = name
        self.message = message
        self.id = id
        self.time = time
    }

    public init(from decoder: any Decoder) throws {
        var row = try decoder.unkeyedContainer()
        name = try row.decode(String.self)
        message = try row.decode(String.self)
        id = try row.decode(String.self)
        time = try row.decode(String.self)
    }

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
    public init() {}
}
