import ChatterCore

/// The fixed facts of ISO/IEC 18004:2015 the encoder looks up rather than derives: the error correction
/// block structure, the alignment pattern centres, and the two BCH codes that protect the format and
/// version information.
extension QRCode {
    /// Table 9, per version 1–40: error correction codewords in each block. Every block of a symbol has the
    /// same number; only the data codewords differ (by at most one between the short and the long blocks).
    private static let correctionCodewordsPerBlock: [Correction: [Int]] = [
        .low: [
            7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
            28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        .medium: [
            10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
            26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        .quartile: [
            13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
            28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        .high: [
            17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
            30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    /// Table 9, per version 1–40: the number of error correction blocks (short and long together).
    private static let blockCounts: [Correction: [Int]] = [
        .low: [
            1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
            8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
        ],
        .medium: [
            1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
            17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        .quartile: [
            1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
            23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        .high: [
            1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
            25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]

    package static func correctionCodewordsPerBlock(version: Int, _ correction: Correction) -> Int {
        correctionCodewordsPerBlock[correction]![version - 1]
    }

    package static func blockCount(version: Int, _ correction: Correction) -> Int {
        blockCounts[correction]![version - 1]
    }

    /// Annex E, Table E.1, per version 1–40: the row and column coordinates of alignment pattern centres.
    /// Patterns go at every pair of them except the three that would overlap a finder pattern.
    package static let alignmentCentres: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
        [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62],
        [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90],
        [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102], [6, 28, 54, 80, 106], [6, 32, 58, 84, 110],
        [6, 30, 58, 86, 114], [6, 34, 62, 90, 118],
        [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130], [6, 30, 56, 82, 108, 134],
        [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142], [6, 34, 62, 90, 118, 146],
        [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154], [6, 28, 54, 80, 106, 132, 158],
        [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170],
    ]

    /// The 15 format bits (7.9.1, Annex C): the level's two bits and the mask's three, then the 10 bits of the
    /// (15, 5) BCH code with generator x^10 + x^8 + x^5 + x^4 + x^2 + x + 1 (0x537), all XORed with
    /// 101010000010010 (0x5412) so that no valid format information is all zeros.
    package static func formatBits(_ correction: Correction, _ mask: Mask) -> Int {
        let data = correction.indicator << 3 | mask.rawValue
        return (data << 10 | bchRemainder(of: data, generator: 0x537, degree: 10)) ^ 0x5412
    }

    /// The 18 version bits (7.10, Annex D): the version in six bits, then the 12 bits of the (18, 6) BCH code
    /// with generator x^12 + x^11 + x^10 + x^9 + x^8 + x^5 + x^2 + 1 (0x1F25). Version 7 gives 0x07C94.
    package static func versionBits(_ version: Int) -> Int {
        version << 12 | bchRemainder(of: version, generator: 0x1F25, degree: 12)
    }

    /// The remainder of data(x)·x^degree divided by the generator, over GF(2).
    private static func bchRemainder(of data: Int, generator: Int, degree: Int) -> Int {
        var remainder = data << degree
        for bit in stride(from: remainder.bitWidth - remainder.leadingZeroBitCount - 1, through: degree, by: -1) where remainder >> bit & 1 == 1 {
            remainder ^= generator << (bit - degree)
        }
        return remainder
    }
}

extension QRCode.Correction {
    /// The error correction level indicator in the format information (7.9.1, Table 12): L 01, M 00, Q 11, H 10.
    package var indicator: Int {
        switch self {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }
}
