import ChatterWire
import NIOCore

/// Writes the answer to every sign-in and refresh, and the course API's list of chatts, straight into a buffer. Foundation's `JSONEncoder`
/// builds a tree of boxed values and sorts each object's keys first, which was a twelfth of a refresh's
/// CPU. The output is byte for byte what `JSONResponse.encoder` writes (keys sorted, slashes unescaped),
/// which `JSONWriterTests` checks against it.
package struct JSONWriter {
    private static let hex = Array("0123456789abcdef".utf8)
    package private(set) var buffer: ByteBuffer
    private var first = true

    package init(capacity: Int = 512) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// An object whose members `body` writes, in the order it writes them (callers list keys sorted).
    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        buffer.writeInteger(UInt8(ascii: "{"))
        first = true
        body(&self)
        buffer.writeInteger(UInt8(ascii: "}"))
        first = false
    }

    package mutating func member(_ key: StaticString, _ value: String) {
        name(key)
        string(value)
    }

    /// Left out when nil, as `encodeIfPresent` does.
    package mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        member(key, value)
    }

    package mutating func member(_ key: StaticString, _ value: Int) {
        name(key)
        buffer.writeString(String(value))
    }

    package mutating func member(_ key: StaticString, _ value: Bool) {
        name(key)
        buffer.writeStaticString(value ? "true" : "false")
    }

    package mutating func member(_ key: StaticString, _ values: [String]) {
        name(key)
        buffer.writeInteger(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            string(value)
        }
        buffer.writeInteger(UInt8(ascii: "]"))
    }

    package mutating func member(_ key: StaticString, object body: (inout JSONWriter) -> Void) {
        name(key)
        object(body)
    }

    /// An array's `[`, for elements written one call at a time; `closeArray` ends it.
    package mutating func openArray() {
        buffer.writeInteger(UInt8(ascii: "["))
        first = true
    }

    package mutating func closeArray() {
        buffer.writeInteger(UInt8(ascii: "]"))
        first = false
    }

    package mutating func element(_ value: String) {
        separate()
        string(value)
    }

    /// An array as an element, whose own elements `body` writes.
    package mutating func element(array body: (inout JSONWriter) -> Void) {
        separate()
        openArray()
        body(&self)
        closeArray()
    }

    /// The comma before every member or element but the first.
    private mutating func separate() {
        if !first { buffer.writeInteger(UInt8(ascii: ",")) }
        first = false
    }

    private mutating func name(_ key: StaticString) {
        separate()
        buffer.writeInteger(UInt8(ascii: "\""))
        buffer.writeStaticString(key)
        buffer.writeStaticString("\":")
    }

    /// Escapes as `JSONEncoder` does: quote, backslash and control characters; everything else, `/` and
    /// non-ASCII included, as is.
    private mutating func string(_ value: String) {
        buffer.writeInteger(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case 0x08: buffer.writeStaticString("\\b")
                case 0x0C: buffer.writeStaticString("\\f")
                case 0x0A: buffer.writeStaticString("\\n")
                case 0x0D: buffer.writeStaticString("\\r")
                case 0x09: buffer.writeStaticString("\\t")
                default:
                    buffer.writeStaticString("\\u00")
                    buffer.writeBytes([Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0x0F)]])
                }
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start...]))
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }
}

extension SessionResponse {
    /// The answer as `JSONResponse.encoder` would write it.
    package var json: ByteBuffer {
        var json = JSONWriter()
        json.object { json in
            json.member("accessToken", accessToken)
            json.member("deviceToken", deviceToken)
            json.member("expiresIn", expiresIn)
            json.member("refreshExpiresIn", refreshExpiresIn)
            json.member("refreshToken", refreshToken)
            json.member("sessionID", sessionID)
            json.member("tokenType", tokenType)
            json.member("user") { user.writeMembers(to: &$0) }
        }
        return json.buffer
    }
}

extension UserProfile {
    package func writeMembers(to json: inout JSONWriter) {
        json.member("displayName", displayName)
        json.member("email", email)
        json.member("emailVerified", emailVerified)
        json.member("id", id)
        json.member("methods", methods)
        if let name { json.member("name") { name.writeMembers(to: &$0) } }
    }
}

extension NameParts {
    package func writeMembers(to json: inout JSONWriter) {
        json.member("familyName", familyName)
        json.member("givenName", givenName)
        json.member("middleName", middleName)
        json.member("namePrefix", namePrefix)
        json.member("nameSuffix", nameSuffix)
        json.member("nickname", nickname)
    }
}
