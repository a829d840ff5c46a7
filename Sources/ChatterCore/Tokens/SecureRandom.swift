#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Secret bytes from the system CSPRNG in one call: a read of /dev/urandom (kept open) on Linux,
/// arc4random_buf on Apple platforms. (A `SymmetricKey` of random bytes asks the kernel 8 bytes at a
/// time into memory it zeroes again when freed, and every refresh makes two tokens.)
package enum SecureRandom {
    package static func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            #if canImport(Darwin)
                arc4random_buf(buffer.baseAddress, count)
            #else
                var filled = 0
                while filled < count {
                    let read = Glibc.read(urandom, buffer.baseAddress! + filled, count - filled)
                    guard read > 0 else {
                        if read < 0 && errno == EINTR { continue }
                        // As the standard library's own generator does: no secret may come from anywhere else.
                        fatalError("reading /dev/urandom failed: errno \(errno)")
                    }
                    filled += read
                }
            #endif
            initialized = count
        }
    }

    #if !canImport(Darwin)
        private static let urandom: Int32 = {
            let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { fatalError("cannot open /dev/urandom: errno \(errno)") }
            return fd
        }()
    #endif
}
