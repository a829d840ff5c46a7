import ChatterWire
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The session answer is written without `JSONEncoder`: it must be the bytes `JSONEncoder` writes, for any
/// names, emails and tokens.
@Suite struct JSONWriterTests {
    /// Every character class the encoder treats apart: controls, quote, backslash, slash, DEL, non-ASCII of
    /// each UTF-8 length, a combining mark, the line separators JavaScript minds.
    static let alphabet: [String] =
        (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + [
            "\"", "\\", "/", "\u{7F}", "a", "Z", "0", " ", "é", "e\u{301}", "ß", "€", "漢", "😀", "👩‍💻", "\u{2028}", "\u{2029}", "\u{FEFF}",
        ]

    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    static func text(_ random: inout Generator) -> String {
        (0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
    }

    static func maybe(_ random: inout Generator) -> String? {
        Bool.random(using: &random) ? text(&random) : nil
    }

    static func response(_ random: inout Generator) -> SessionResponse {
        let name: NameParts? =
            Bool.random(using: &random)
            ? NameParts(
                givenName: maybe(&random), familyName: maybe(&random), middleName: maybe(&random), nickname: maybe(&random),
                namePrefix: maybe(&random), nameSuffix: maybe(&random))
            : nil
        return SessionResponse(
            accessToken: text(&random), refreshToken: text(&random), tokenType: text(&random),
            expiresIn: Int.random(in: Int.min...Int.max, using: &random), refreshExpiresIn: Int.random(in: -1...7_776_000, using: &random),
            sessionID: text(&random),
            user: UserProfile(
                id: text(&random), displayName: text(&random), email: maybe(&random), emailVerified: Bool.random(using: &random), name: name,
                methods: (0..<Int.random(in: 0...4, using: &random)).map { _ in text(&random) }),
            deviceToken: maybe(&random))
    }

    @Test func theSessionAnswerIsWhatJSONEncoderWrites() throws {
        var random = Generator(state: 2026)
        for _ in 0..<5_000 {
            let value = Self.response(&random)
            let written = Array(value.json.readableBytesView)
            let encoded = Array(try JSONResponse.encoder.encode(value))
            #expect(written == encoded, "\(String(decoding: written, as: UTF8.self)) ≠ \(String(decoding: encoded, as: UTF8.self))")
            if written != encoded { return }
        }
    }

    @Test func aTypicalAnswerDecodesBackToItself() throws {
        let value = SessionResponse(
            accessToken: "a", refreshToken: "b", expiresIn: 900, refreshExpiresIn: 7_776_000, sessionID: UUID().uuidString,
            user: UserProfile(
                id: UUID().uuidString, displayName: "Ada \"the\" Countess\n", email: "ada@example.com", emailVerified: true,
                name: NameParts(givenName: "Ada", familyName: "King"), methods: ["apple", "password"]),
            deviceToken: "d")
        #expect(try JSONDecoder().decode(SessionResponse.self, from: Data(value.json.readableBytesView)) == value)
    }

    /// `/getchatts` as the course API has always answered it: the `ChattRow`s `JSONEncoder` wrote, with the
    /// time Foundation's `ISO8601FormatStyle` wrote.
    @Test func theCourseListIsWhatJSONEncoderWrites() throws {
        var random = Generator(state: 1123)
        for count in [0, 1, 2, 7, 300] {
            let chatts = (0..<count).map { _ in
                Chatt(
                    name: Self.text(&random), message: Self.text(&random),
                    time: Date(timeIntervalSince1970: Double.random(in: 1_600_000_000..<1_900_000_000, using: &random)),
                    userID: Bool.random(using: &random) ? UUID() : nil)
            }
            let rows = chatts.map {
                ChattRow(name: $0.name, message: $0.message, id: $0.id.text, time: $0.time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            }
            let list = CourseList(capacity: 16)
            chatts.forEach(list.append)
            let written = Array(list.finish().readableBytesView)
            let encoded = Array(try WireJSON.encoder.encode(rows))
            #expect(written == encoded, "\(String(decoding: written, as: UTF8.self)) ≠ \(String(decoding: encoded, as: UTF8.self))")
        }
    }
}
