#if canImport(Security)
    import Foundation
    import Security

    /// Whether data protection can read a class now, told by a small file of the same class. UIKit's
    /// `isProtectedDataAvailable` would need the main actor and is missing in app extensions.
    enum ProtectedDataProbe {
        static func isAvailable(for accessibility: String) -> Bool {
            #if os(macOS)
                return true  // a signed-in macOS user's keychain is readable; there is no before-first-unlock state
            #else
                let untilFirstUnlock = accessibility == (kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
                guard
                    let directory = try? FileManager.default.url(
                        for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
                else { return false }
                let probe = directory.appendingPathComponent(untilFirstUnlock ? "ChatterKit.probe-after-first-unlock" : "ChatterKit.probe-when-unlocked")
                if (try? Data(contentsOf: probe)) != nil { return true }
                // Missing (first use) or unreadable: a file of the class can be written only while its key is there.
                let protection: Data.WritingOptions = untilFirstUnlock ? .completeFileProtectionUntilFirstUserAuthentication : .completeFileProtection
                return (try? Data("probe".utf8).write(to: probe, options: [.atomic, protection])) != nil
            #endif
        }
    }
#endif
