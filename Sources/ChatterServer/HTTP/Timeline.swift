import ChatterWire
import Foundation
import Hummingbird

/// The chatt timeline. Its two most frequent answers — the course API's full list and the native API's
/// newest page — are cached as encoded JSON: they change only when a chatt is posted, which drops them.
final class Timeline: Sendable {
    static let defaultPage = 50
    static let maximumPage = 200

    let store: any ChattRepository
    private let course: SingleFlightCache
    private let newestPage: SingleFlightCache

    init(store: any ChattRepository) {
        self.store = store
        course = SingleFlightCache {
            let rows = try await store.allChatts().map {
                ChattRow(name: $0.name, message: $0.message, id: $0.id.uuidString, time: Self.timestamp($0.time))
            }
            return ByteBuffer(bytes: try JSONResponse.encoder.encode(rows))
        }
        newestPage = SingleFlightCache { try await Self.page(store, before: nil, limit: Self.defaultPage) }
    }

    /// A post whose author was deleted while it ran is the client's bad luck, answered as a signed-out 401.
    func add(_ chatt: Chatt) async throws {
        do {
            try await store.addChatt(chatt)
        } catch StoreError.userGone {
            throw APIError(.unauthorized, "invalid_session", "This account no longer exists; sign in again.")
        }
        course.invalidate()
        newestPage.invalidate()
    }

    func courseJSON() async throws -> ByteBuffer {
        try await course.value()
    }

    /// Newest first; `before` continues from the chatt with that id.
    func pageJSON(before: UUID?, limit: Int) async throws -> ByteBuffer {
        if before == nil, limit == Self.defaultPage { return try await newestPage.value() }
        return try await Self.page(store, before: before, limit: limit)
    }

    private static func page(_ store: any ChattRepository, before: UUID?, limit: Int) async throws -> ByteBuffer {
        let items = try await store.chatts(before: before, limit: limit).map {
            ChattItem(id: $0.id.uuidString, userID: $0.userID?.uuidString, name: $0.name, message: $0.message, time: $0.time.timeIntervalSince1970)
        }
        return ByteBuffer(bytes: try JSONResponse.encoder.encode(ChattPage(chatts: items, next: items.count == limit ? items.last?.id : nil)))
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
