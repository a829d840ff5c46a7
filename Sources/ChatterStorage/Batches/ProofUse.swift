import ChatterCore
import Foundation

/// One request's use of a DPoP proof, batched with those arriving together (`BatchingLookup`). Each is its
/// own key, even for the same proof: two requests presenting one proof must get two answers, of which at
/// most one is "first" (`firstUses`), never one answer shared.
package struct ProofUse: Hashable, Sendable {
    package let id = UUID()
    package let proof: [UInt8]
    package let until: Date
    package let now: Date

    package static func == (a: ProofUse, b: ProofUse) -> Bool { a.id == b.id }
    package func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// A batch's uses with each proof once (the first to arrive), and the rest, which are replays whatever
    /// the database says: a statement must not write one row twice.
    package static func firstUses(_ batch: [ProofUse]) -> (first: [ProofUse], repeated: [ProofUse]) {
        var seen = Set<[UInt8]>()
        var first: [ProofUse] = []
        var repeated: [ProofUse] = []
        for use in batch {
            if seen.insert(use.proof).inserted { first.append(use) } else { repeated.append(use) }
        }
        return (first, repeated)
    }

    /// The answers of a batch whose statement returned `written` (the proofs it inserted or took again).
    package static func answers(_ first: [ProofUse], _ repeated: [ProofUse], written: Set<[UInt8]>) -> [ProofUse: Bool] {
        var answers: [ProofUse: Bool] = [:]
        for use in first { answers[use] = written.contains(use.proof) }
        for use in repeated { answers[use] = false }
        return answers
    }
}
