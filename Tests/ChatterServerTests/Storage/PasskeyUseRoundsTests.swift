import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// How both stores split a batch of counters that names a passkey more than once.
struct PasskeyUseRoundsTests {
    @Test func eachRoundNamesAPasskeyOnceInArrivalOrder() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let uses = [[1], [2], [1], [3], [1], [2]].enumerated().map { index, id in
            PasskeyUse(credentialID: id.map(UInt8.init), signCount: UInt32(index), backedUp: false, at: now)
        }
        let rounds = PasskeyUse.rounds(uses)
        #expect(rounds.map { $0.map(\.signCount) } == [[0, 1, 3], [2, 5], [4]])
        #expect(PasskeyUse.rounds([]).isEmpty)
    }
}
