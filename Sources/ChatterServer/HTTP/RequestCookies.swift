import ChatterCore
import ChatterDomain
import ChatterStorage
import HTTPTypes
import Hummingbird

extension Request {
    /// The value of the first cookie called `name` the request sent, or nil (`CookieHeader`). An empty value
    /// reads as none: chatterd ends its cookies by setting them empty, and no cookie of its means anything empty.
    func cookie(_ name: String) -> String? {
        guard let value = CookieHeader.value(named: name, in: headers), !value.isEmpty else { return nil }
        return value
    }
}

/// Reads one cookie's value from a request's `Cookie` fields, byte by byte.
///
/// Hummingbird's `request.cookies[name]` walks the fields by `Character` and builds a `Cookie` with its
/// properties for every name asked: about 55,000 instructions a name, and every page asks for two
/// (BENCHMARKS.md, 2026-11-27, third session). Here a field is split at `;` (the `cookie-string` of RFC 6265
/// §4.2.1 is `cookie-pair *( ";" SP cookie-pair )`), the spaces and tabs before a name are skipped, the name
/// is everything up to the first `=`, compared byte for byte, and the value everything after it: §5.2's
/// reading of a pair without its trimming, as Hummingbird read it. Hummingbird reads every ASCII pair with a
/// name and a value the same (a test compares the two); it differs where it strays from the RFC (an empty
/// value is no cookie, `==` is `=`) and on other bytes, where this one is the stricter:
/// - only ASCII space and tab are skipped before a name. Hummingbird skipped any Unicode space, so a cookie
///   named `U+00A0` + `__Host-chatter-session`, which a sibling subdomain may set (browsers hold only names
///   that start with `__Host-` to that prefix's rules) and a longer path sends first, was read as the session
///   cookie: a session fixed by another site. Here it is a cookie of another name.
/// - a combining mark after `;` does not hide the boundary.
enum CookieHeader {
    static func value(named name: String, in fields: HTTPFields) -> String? {
        for field in fields where field.name == .cookie {
            if let found = value(named: name, inField: field.value) { return found }
        }
        return nil
    }

    static func value(named name: String, inField field: String) -> String? {
        var field = field
        return field.withUTF8 { value(named: name, in: $0) }
    }

    private static func value(named name: String, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
            var first = start
            while first < end, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") { first += 1 }
            var equals = first
            while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
            if equals < end, bytes[first..<equals].elementsEqual(name.utf8) {
                return String(decoding: bytes[(equals + 1)..<end], as: UTF8.self)
            }
            start = end + 1
        }
        return nil
    }
}
