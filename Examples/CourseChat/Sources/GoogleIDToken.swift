import Foundation

#if canImport(GoogleSignIn)
    @preconcurrency import GoogleSignIn  // its results are not Sendable; they stay on the main actor here
    import UIKit

    /// The Google ID token provider `ChattTimelineView` asks for when a post needs a session: Google's SDK
    /// (the GoogleSignIn package; ChatterUI does not depend on it) shows its sign-in and returns the ID token
    /// that chatterd verifies.
    enum GoogleIDToken {
        /// Presents Google Sign-In over the key window and returns its ID token. The user closing Google's
        /// sheet is a `CancellationError`, which the timeline treats as "not posted", without an error banner.
        @MainActor static func signIn() async throws -> String {
            let keyWindow = UIApplication.shared.connectedScenes
                .compactMap { $0 as? UIWindowScene }
                .flatMap(\.windows)
                .first(where: \.isKeyWindow)
            guard let presenter = keyWindow?.rootViewController else { throw GoogleSignInFailure.noWindow }
            do {
                let result = try await GIDSignIn.sharedInstance.signIn(withPresenting: presenter)
                guard let idToken = result.user.idToken?.tokenString else { throw GoogleSignInFailure.noIDToken }
                return idToken
            } catch let error as GIDSignInError where error.code == .canceled {
                throw CancellationError()
            }
        }

        /// Gives Google's redirect back to its SDK (the URL scheme is the reversed client ID, in project.yml).
        @MainActor static func handle(_ url: URL) {
            _ = GIDSignIn.sharedInstance.handle(url)
        }
    }

    enum GoogleSignInFailure: LocalizedError {
        case noWindow, noIDToken

        var errorDescription: String? {
            switch self {
            case .noWindow: return "There is no window to show Google Sign-In in."
            case .noIDToken: return "Google Sign-In returned no ID token."
            }
        }
    }

#else

    /// Without Google's SDK the app builds, and signing in says what is missing.
    enum GoogleIDToken {
        @MainActor static func signIn() async throws -> String {
            throw GoogleSignInMissing()
        }

        @MainActor static func handle(_ url: URL) {}
    }

    struct GoogleSignInMissing: LocalizedError {
        var errorDescription: String? {
            "Google Sign-In is not linked: add the GoogleSignIn package (https://github.com/google/GoogleSignIn-iOS, product GoogleSignIn) to the app target."
        }
    }

#endif
