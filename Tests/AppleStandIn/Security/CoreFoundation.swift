// Core Foundation, as far as the project's Security calls use it. Apple's Security re-exports CoreFoundation
// (not Foundation). Linux has a CoreFoundation module of its own, but its types are not toll-free bridged
// (`cf as String` does not compile there) and `import Foundation` does not show them, so they are declared here.

import Foundation

/// https://developer.apple.com/documentation/corefoundation/cfstring
/// https://developer.apple.com/documentation/corefoundation/cfdictionary
/// https://developer.apple.com/documentation/corefoundation/cfarray
/// https://developer.apple.com/documentation/corefoundation/cfdata
/// https://developer.apple.com/documentation/corefoundation/cferror
/// Each is toll-free bridged to its Foundation class
/// (https://developer.apple.com/library/archive/documentation/CoreFoundation/Conceptual/CFDesignConcepts/Articles/tollFreeBridgedTypes.html),
/// so, as on Apple's systems, `kSecClass as String`, `"…" as CFString`, `query as CFDictionary` and `data as Data?`
/// convert, and `[CFString: Any]` is a dictionary type. Being the Foundation class itself, each is a little looser
/// than Apple's (a CFString passes where an NSString is asked for, without `as NSString`).
public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFArray = NSArray
public typealias CFData = NSData
public typealias CFError = NSError

/// https://developer.apple.com/documentation/corefoundation/cftyperef
public typealias CFTypeRef = AnyObject

/// https://developer.apple.com/documentation/corefoundation/cfoptionflags
public typealias CFOptionFlags = UInt

/// https://developer.apple.com/documentation/corefoundation/cfallocator — only ever passed as nil here.
public final class CFAllocator {}

/// https://developer.apple.com/documentation/kernel/osstatus — the result code of the Security functions.
public typealias OSStatus = Int32
