import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension ChatterAPI {
    /// The `User-Agent` ChatterKit sends unless told otherwise: the app's name and version (from its bundle),
    /// ChatterKit's version, the system and the device model, such as
    /// `CourseChat/1.2 ChatterKit/0.3.0 (iOS 18.1; iPhone15,2)`. chatterd's session list shows it as
    /// "CourseChat on iPhone", so a user can tell their devices and apps apart.
    public static let defaultUserAgent: String = {
        let info = Bundle.main.infoDictionary ?? [:]
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return userAgent(
            appName: (info["CFBundleName"] ?? info["CFBundleExecutable"]) as? String, appVersion: info["CFBundleShortVersionString"] as? String,
            system: "\(systemName) \(version.majorVersion).\(version.minorVersion)", machine: machine())
    }()

    /// The agent string for these parts; an app name is kept to the characters an HTTP product token allows.
    static func userAgent(appName: String?, appVersion: String?, system: String, machine: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        func token(_ text: String?) -> String? {
            guard let text else { return nil }
            let cleaned = String(text.map { allowed.contains($0) ? $0 : "-" }.prefix(40))
            return cleaned.allSatisfy { $0 == "-" } ? nil : cleaned
        }
        var product = ""
        if let name = token(appName) { product = name + (token(appVersion).map { "/" + $0 } ?? "") + " " }
        let details = [system, machine].filter { !$0.isEmpty }.map { String($0.filter { $0 != "(" && $0 != ")" && $0 != ";" }.prefix(40)) }
        return product + "ChatterKit/\(ChatterKit.version) (" + details.joined(separator: "; ") + ")"
    }

    static var systemName: String {
        #if os(iOS)
            return "iOS"
        #elseif os(macOS)
            return "macOS"
        #elseif os(watchOS)
            return "watchOS"
        #elseif os(tvOS)
            return "tvOS"
        #elseif os(visionOS)
            return "visionOS"
        #elseif os(Linux)
            return "Linux"
        #else
            return "unknown"
        #endif
    }

    /// The hardware model (`iPhone15,2`, `arm64`), from uname.
    static func machine() -> String {
        var name = utsname()
        guard uname(&name) == 0 else { return "" }
        return withUnsafeBytes(of: &name.machine) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
