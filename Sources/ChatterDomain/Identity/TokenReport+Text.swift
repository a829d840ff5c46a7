import ChatterCore
import Foundation

extension TokenReport {
    /// The report as `chatterd check-token` prints it: header, claims, then one line per check.
    public func text(keys: String, checkedAt instant: Date) -> String {
        var lines = [
            "header:", headerJSON ?? "(not decodable)",
            "claims:", claimsJSON ?? "(not decodable)",
            "keys: \(keys)",
            "checked at: \(Int(instant.timeIntervalSince1970)) (\(instant.formatted(.iso8601)))",
        ]
        for result in results {
            let mark =
                switch result.outcome {
                case .pass: "PASS"
                case .fail: "FAIL"
                case .skipped: "SKIP"
                }
            lines.append("\(mark)  \(result.check.name.padding(toLength: 11, withPad: " ", startingAt: 0)) \(result.detail)")
        }
        lines.append(passed ? "token accepted" : "token rejected")
        return lines.joined(separator: "\n")
    }
}
