#if os(Linux)
    import Foundation
    import Glibc

    /// The desktop keyring on Linux (the freedesktop Secret Service: gnome-keyring, KWallet), reached through
    /// libsecret's `secret-tool` command, so ChatterKit has no build-time dependency on libsecret and a
    /// machine without it still builds and falls back to `FileStore`. Values are base64 text, since
    /// secret-tool stores text.
    public struct SecretServiceStore: SecretStore {
        /// Groups the items; use something unique to the app and server.
        public let service: String
        /// The `secret-tool` executable (Debian and Ubuntu package `libsecret-tools`); without it every call throws
        /// `.unavailable`.
        public let tool: String
        /// A locked keyring may want to show an unlock prompt; with no one to answer it the call would hang.
        public var timeout: Duration

        /// A store whose items are filed under `service`. `timeout` bounds each `secret-tool` call.
        public init(service: String, tool: String = "/usr/bin/secret-tool", timeout: Duration = .seconds(10)) {
            self.service = service
            self.tool = tool
            self.timeout = timeout
        }

        /// Whether a keyring answers now: a lookup that finds nothing counts; one that cannot ask does not.
        public func isReachable() async -> Bool {
            do {
                _ = try await read("chatterkit.probe")
                return true
            } catch {
                return false
            }
        }

        /// The item's data, or nil when the keyring has none. Throws `.unavailable` when no keyring answers in time,
        /// `.denied` when the user dismisses its unlock prompt.
        public func read(_ key: String) async throws(StorageError) -> Data? {
            let result = try await run(["lookup", "service", service, "account", key])
            if result.status == 1, result.error.isEmpty { return nil }
            guard result.status == 0 else { throw Self.failure(result) }
            let text = String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let data = Data(base64Encoded: text) else { throw .failed("the keyring item for \(key) is not ChatterKit's") }
            return data
        }

        /// Stores the value in the keyring (as base64 text), replacing the old one.
        public func write(_ data: Data, for key: String) async throws(StorageError) {
            let result = try await run(
                ["store", "--label=\(service) \(key)", "service", service, "account", key], input: Data(data.base64EncodedString().utf8))
            guard result.status == 0 else { throw Self.failure(result) }
        }

        /// Removes the item; a missing item is not an error.
        public func delete(_ key: String) async throws(StorageError) {
            let result = try await run(["clear", "service", service, "account", key])
            // `clear` exits 1 with nothing on stderr when there was nothing to remove.
            if result.status == 1, result.error.isEmpty { return }
            guard result.status == 0 else { throw Self.failure(result) }
        }

        struct Result {
            var status: Int32
            var output: Data
            var error: String
        }

        static func failure(_ result: Result) -> StorageError {
            let text = result.error.isEmpty ? "secret-tool exited with \(result.status)" : result.error
            return text.localizedCaseInsensitiveContains("denied") || text.localizedCaseInsensitiveContains("dismissed")
                ? .denied(text) : .unavailable(text)
        }

        func run(_ arguments: [String], input: Data? = nil) async throws(StorageError) -> Result {
            guard FileManager.default.isExecutableFile(atPath: tool) else {
                throw .unavailable("\(tool) is not installed (Debian/Ubuntu: apt install libsecret-tools)")
            }
            let outcome: ChildProcess.Outcome
            do {
                outcome = try await ChildProcess.run(tool, arguments, input: input, timeout: timeout)
            } catch {
                throw .unavailable(error.description)
            }
            guard !outcome.timedOut, let status = outcome.status else {
                throw .unavailable("the keyring did not answer within \(timeout) (is it locked?)")
            }
            let error = String(decoding: outcome.error, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return Result(status: status, output: outcome.output, error: error)
        }
    }
#endif
