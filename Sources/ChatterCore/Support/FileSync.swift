import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// fsyncs the file or directory at `path`: what it holds is on disk when this returns.
package func fsyncFile(atPath path: String) throws {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw StoreError.syncFailed(errno) }
    defer { close(fd) }
    guard fsync(fd) == 0 else { throw StoreError.syncFailed(errno) }
}
