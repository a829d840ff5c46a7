import Foundation

extension ChatterError {
    /// The sentence for a screen's error banner, or `nil` when there is nothing to tell: the user
    /// cancelled, or the task was (a SwiftUI `.task` ends when its view goes away).
    public static func banner(for error: any Error) -> String? {
        if ChatterAPI.isCancellation(error) || (error as? ChatterError) == .cancelled { return nil }
        return describe(error)
    }
}
