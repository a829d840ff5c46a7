import Foundation
import Synchronization
import Testing

@testable import ChatterKit

extension ChatterClient {
    /// Signs in through the email-code flow, reading the code from the server's outbox.
    @discardableResult
    func signInByEmail(_ email: String = "ada@example.com", on server: LiveServer) async throws -> AuthSession {
        _ = try await requestEmailCode(email: email)
        let code = try #require(server.mail.lastCode(to: email))
        return try await verifyEmailCode(email: email, code: code)
    }
}

/// The session as stored, decoded, to check what a crash would leave behind.
func storedSession(in store: any SecretStore) async throws -> StoredSession? {
    try await store.read(StoreKey.session).map { try JSONDecoder().decode(StoredSession.self, from: $0) }
}

/// Collects a stream's events in the background so a test can wait for a number of them.
final class EventLog: Sendable {
    private let events = Mutex<[AuthEvent]>([])
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ stream: AsyncStream<AuthEvent>) {
        let task = Task { [weak self] in
            for await event in stream { self?.append(event) }
        }
        self.task.withLock { $0 = task }
    }

    private func append(_ event: AuthEvent) { events.withLock { $0.append(event) } }

    var all: [AuthEvent] { events.withLock { $0 } }

    /// Waits (up to ten seconds, for a loaded CI machine) until at least `count` events arrived.
    func waitFor(_ count: Int) async -> [AuthEvent] {
        for _ in 0..<1_000 {
            let now = all
            if now.count >= count { return now }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return all
    }

    deinit { task.withLock { $0?.cancel() } }
}

/// Holds requests to one path until released, to catch a request in flight; with `holdingAnswers`, the request
/// reaches the server and its answer is what is held (the server has acted, the client does not know yet).
final class GateTransport: HTTPTransport {
    let inner: any HTTPTransport
    let path: String
    let holdingAnswers: Bool
    private let state = Mutex<(waiting: Int, open: Bool)>((0, false))

    init(path: String, holdingAnswers: Bool = false, _ inner: any HTTPTransport = URLSessionTransport()) {
        self.path = path
        self.holdingAnswers = holdingAnswers
        self.inner = inner
    }

    var waiting: Int { state.withLock { $0.waiting } }
    func open() { state.withLock { $0.open = true } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url.path == path else { return try await inner.send(request) }
        let answer = holdingAnswers ? try await inner.send(request) : nil
        state.withLock { $0.waiting += 1 }
        while !state.withLock({ $0.open }) { try? await Task.sleep(for: .milliseconds(5)) }
        if let answer { return answer }
        return try await inner.send(request)
    }
}

/// Polls until `condition` holds, for at most about ten seconds (a loaded CI machine is slow).
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<2_000 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return false
}
