import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Secrets in files readable only by the user (directory 0700, files 0600): the last resort on a Linux
/// machine with no reachable keyring. Writes go to a temporary file that is synced and renamed over the
/// old one, so a crash leaves either the old value or the new one, never a torn file.
public struct FileStore: SecretStore {
    /// Where the files are kept; created with mode 0700 at the first write.
    public let directory: String

    /// A store in `directory`, a path (`~` is not expanded). Nothing is created before the first write.
    public init(directory: String) {
        self.directory = directory
    }

    func path(_ key: String) -> String {
        let safe = key.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? String($0) : "_" }.joined()
        return (directory as NSString).appendingPathComponent(safe)
    }

    /// The file's contents, or nil when there is no file. Throws `.denied` when permissions forbid reading it.
    public func read(_ key: String) async throws(StorageError) -> Data? {
        let file = path(key)
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Self.error(errno, "cannot open \(file)")
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 { throw Self.error(errno, "cannot read \(file)") }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    /// Writes a temporary file (mode 0600), syncs it and renames it over the old one.
    public func write(_ data: Data, for key: String) async throws(StorageError) {
        try ensureDirectory()
        let file = path(key)
        let temporary = file + ".tmp-\(UUID().uuidString)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 { throw Self.error(errno, "cannot create \(temporary)") }
        var ok = fchmod(fd, 0o600) == 0
        ok =
            ok
            && data.withUnsafeBytes { bytes -> Bool in
                var offset = 0
                while offset < bytes.count {
                    let written = systemWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written <= 0 { return false }
                    offset += written
                }
                return true
            }
        ok = ok && fsync(fd) == 0
        let code = errno
        close(fd)
        guard ok, rename(temporary, file) == 0 else {
            let failure = ok ? errno : code
            unlink(temporary)
            throw Self.error(failure, "cannot write \(file)")
        }
    }

    /// Removes the file; a missing file is not an error.
    public func delete(_ key: String) async throws(StorageError) {
        if unlink(path(key)) != 0, errno != ENOENT { throw Self.error(errno, "cannot delete \(path(key))") }
    }

    private func ensureDirectory() throws(StorageError) {
        if mkdir(directory, 0o700) != 0 {
            guard errno == EEXIST else {
                do {
                    try FileManager.default.createDirectory(
                        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                    return
                } catch {
                    throw .failed("cannot create \(directory): \(error.localizedDescription)")
                }
            }
        }
    }

    static func error(_ code: Int32, _ what: String) -> StorageError {
        let text = "\(what): \(String(cString: strerror(code)))"
        return code == EACCES || code == EPERM ? .denied(text) : .failed(text)
    }
}

// At file scope these names mean the C functions, not FileStore's own read/write.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
