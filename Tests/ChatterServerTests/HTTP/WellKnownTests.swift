import ChatterTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The association files that let native apps use chatterd's passkeys, made from the configuration.
@Suite struct WellKnownTests {
    /// The example fingerprint of Android's "Verify Android App Links" documentation.
    static let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
    static let otherFingerprint = String(repeating: "ab", count: 32)

    @Test func theConfiguredAppsGetTheirFilesAndAndroidAppsTheirOrigins() async throws {
        try await Harness.run(configure: {
            try? $0.apply(
                environment: ["CHATTERD_ANDROID_APPS": "com.example.chatter:\(Self.fingerprint),com.example.chatter:\(Self.otherFingerprint)"],
                arguments: ["--apple-app-id", "ABCDE12345.com.example.Chatter", "--apple-app-id", "ABCDE12345.com.example.Chatter.mac"])
        }) { h in
            let apple = try await h.client.execute(uri: "/.well-known/apple-app-site-association", method: .get)
            #expect(apple.status == .ok)
            #expect(apple.headers[.contentType] == "application/json")
            let appleJSON = try #require(try JSONSerialization.jsonObject(with: Data(buffer: apple.body)) as? [String: [String: [String]]])
            #expect(appleJSON == ["webcredentials": ["apps": ["ABCDE12345.com.example.Chatter", "ABCDE12345.com.example.Chatter.mac"]]])

            let android = try await h.client.execute(uri: "/.well-known/assetlinks.json", method: .get)
            #expect(android.status == .ok && android.headers[.contentType] == "application/json")
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(buffer: android.body)) as? [[String: Any]])
            #expect(statements.count == 1, "one statement for the package, with both certificates")
            #expect(statements.first?["relation"] as? [String] == ["delegate_permission/common.get_login_creds"])
            let target = try #require(statements.first?["target"] as? [String: Any])
            #expect(target["namespace"] as? String == "android_app" && target["package_name"] as? String == "com.example.chatter")
            #expect(target["sha256_cert_fingerprints"] as? [String] == [Self.fingerprint, String(repeating: "AB:", count: 32).dropLast().description])

        }
        // The app's assertions carry android:apk-key-hash: and the base64url of the certificate's digest.
        var config = ServerConfiguration()
        config.androidApps = ["com.example.chatter:\(Self.fingerprint)"]
        #expect(config.relyingParty.origins == ["https://localhost:8443", "android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU"])
        config.passkeyOrigins = ["https://chatter.example"]
        #expect(config.relyingParty.origins == ["https://chatter.example"], "origins given are the whole list")
    }

    @Test func withoutAppsThereAreNoFiles() async throws {
        try await Harness.run { h in
            for path in ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"] {
                let answer = try await h.client.execute(uri: path, method: .get)
                #expect(answer.status == .notFound, "\(path)")
            }
        }
    }

    @Test func entriesThatAreNotAppsStopChatterdFromStarting() throws {
        for bad in ["ABCDE12345", "abcde12345.com.example", "ABCDE1234.com.example", "ABCDE12345.com/example", "ABCDE12345.\"},{\"x"] {
            var config = ServerConfiguration()
            config.appleAppIDs = [bad]
            #expect(throws: ConfigurationError.self, "\(bad)") { try config.validate() }
        }
        for bad in [
            "com.example", "chatter:\(Self.fingerprint)", "com.example.chatter", "com.example.chatter:AB:CD", "1com.example:\(Self.fingerprint)",
            "com.example.chatter:" + String(repeating: "+f", count: 32), "com.example.chatter:" + String(repeating: "zz", count: 32),
        ] {
            var config = ServerConfiguration()
            config.androidApps = [bad]
            #expect(throws: ConfigurationError.self, "\(bad)") { try config.validate() }
        }
        var good = ServerConfiguration()
        good.appleAppIDs = ["ABCDE12345.com.example-app.Chatter"]
        good.androidApps = ["com.example.chatter_app:" + Self.otherFingerprint.uppercased()]
        try good.validate()
    }
}
