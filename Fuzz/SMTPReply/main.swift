// Fuzz target `smtp-reply`: arbitrary bytes as what an SMTP server sends, through `SMTPReplyParser` as the
// mail client reads it: bytes appended as they arrive, complete replies taken until none is left. A
// malformed reply ends the connection, so parsing stops at the first error.
//
// Input: one byte that sets the chunk size (1–64 bytes: how the network splits the stream), then the
// stream. The same stream is also parsed in one piece: how it was split must not change what it says.

import FuzzSupport
import NIOCore

@testable import ChatterCore
@testable import ChatterDomain

struct Transcript: Equatable, CustomStringConvertible {
    var replies: [SMTPReply] = []
    var failed = false
    var unread = false

    /// Short enough for a crash message: each reply's code and line lengths.
    var description: String {
        let shown = replies.map { "\($0.code)\($0.lines.map { "[\($0.utf8.count) bytes]" }.joined())" }
        return "\(shown.joined(separator: " ")) \(failed ? "then malformed" : unread ? "then a partial reply" : "then nothing")"
    }
}

func parse(_ stream: ArraySlice<UInt8>, chunk: Int) -> Transcript {
    var parser = SMTPReplyParser()
    var transcript = Transcript()
    var offset = stream.startIndex
    repeat {
        let end = min(offset + chunk, stream.endIndex)
        parser.append(ByteBuffer(bytes: stream[offset..<end]))
        offset = end
        do {
            while let reply = try parser.next() {
                invariant((0...999).contains(reply.code), "reply code \(reply.code)")
                invariant(!reply.lines.isEmpty && reply.lines.count <= SMTPReplyParser.maximumLines, "reply with \(reply.lines.count) lines")
                _ = reply.summary
                _ = reply.isPositive
                transcript.replies.append(reply)
            }
        } catch {
            transcript.failed = true
            return transcript
        }
    } while offset < stream.endIndex
    transcript.unread = parser.hasUnreadBytes
    return transcript
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = bytes(data, size)
    let stream = input.dropFirst()
    let chunked = parse(stream, chunk: Int(input[0] % 64) + 1)
    let whole = parse(stream, chunk: max(stream.count, 1))
    invariant(chunked == whole, "the replies depend on how the stream was split: \(chunked) vs \(whole)")
    return 0
}

runLibFuzzer(fuzz)
