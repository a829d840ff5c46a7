import ChatterCore

/// A QR Code symbol (ISO/IEC 18004:2015, Model 2) holding bytes in byte mode, for showing `otpauth://`
/// enrolment URIs to an authenticator app. It takes the smallest version (1–40) that fits, and of the eight
/// masks the one the standard's penalty rules score lowest; section and table numbers below are the
/// standard's.
package struct QRCode: Sendable {
    /// The four error correction levels (7.5.1): about 7, 15, 25 and 30 % of the codewords can be restored.
    package enum Correction: Sendable, CaseIterable {
        case low, medium, quartile, high
    }

    /// The eight data mask patterns (7.8.2, Table 10), named by their three-bit references.
    package enum Mask: Int, Sendable, CaseIterable {
        case m000, m001, m010, m011, m100, m101, m110, m111

        /// Whether the mask flips the module in row `i`, column `j`.
        package func flips(i: Int, j: Int) -> Bool {
            switch self {
            case .m000: (i + j) % 2 == 0
            case .m001: i % 2 == 0
            case .m010: j % 3 == 0
            case .m011: (i + j) % 3 == 0
            case .m100: (i / 2 + j / 3) % 2 == 0
            case .m101: (i * j) % 2 + (i * j) % 3 == 0
            case .m110: ((i * j) % 2 + (i * j) % 3) % 2 == 0
            case .m111: ((i + j) % 2 + (i * j) % 3) % 2 == 0
            }
        }
    }

    /// More bytes than a version 40 symbol holds at the level asked for.
    package struct TooLong: Error {
        package let byteCount: Int
        package let capacity: Int
    }

    package let version: Int
    package let correction: Correction
    package let mask: Mask
    /// Modules per side: 21 for version 1, four more for each version after it (6.3.1).
    package let size: Int
    /// Row by row from the top left; true is dark.
    private let modules: [Bool]

    /// `mask` is for tests, to score the masks the encoder did not choose.
    package init(bytes: [UInt8], correction: Correction = .medium, mask: Mask? = nil) throws(TooLong) {
        guard let version = (1...40).first(where: { Self.dataCodewords(version: $0, correction) * 8 >= Self.bitsNeeded(bytes.count, version: $0) }) else {
            throw TooLong(byteCount: bytes.count, capacity: Self.byteCapacity(version: 40, correction))
        }
        var grid = Grid(version: version)
        grid.place(Self.codewords(for: bytes, version: version, correction))
        // Each mask is scored on the whole symbol as it would be printed, format information included (7.8.3).
        let candidates = (mask.map { [$0] } ?? Mask.allCases).map { mask in
            var masked = grid
            masked.apply(mask, correction)
            return (mask: mask, grid: masked, penalty: Self.penalty(masked.dark, size: masked.size))
        }
        let best = candidates.min { $0.penalty < $1.penalty }!
        self.version = version
        self.correction = correction
        self.mask = best.mask
        self.size = grid.size
        self.modules = best.grid.dark
    }

    /// The penalty score of the symbol, by which the mask was chosen.
    package var penalty: Int { Self.penalty(modules, size: size) }

    /// Whether the module in column `x`, row `y` (0-based from the top left) is dark.
    package func isDark(x: Int, y: Int) -> Bool {
        precondition((0..<size).contains(x) && (0..<size).contains(y), "(\(x), \(y)) is outside the \(size)-module symbol")
        return modules[y * size + x]
    }

    /// A standalone SVG image: a white background and one path of black modules, each row's runs of dark
    /// modules drawn as 1-module-high rectangles in a viewBox measured in modules. Only numbers go into it, so
    /// it is safe to inline in HTML; the caller adds an `aria-label`. The standard asks for a 4-module quiet zone.
    package func svg(moduleSize: Int = 4, quietZone: Int = 4) -> String {
        precondition(moduleSize > 0 && quietZone >= 0)
        let side = size + 2 * quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                var run = 1
                while x + run < size && isDark(x: x + run, y: y) { run += 1 }
                path += "M\(x + quietZone) \(y + quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        let pixels = side * moduleSize
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(pixels)" height="\(pixels)" \
            role="img" shape-rendering="crispEdges"><rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path d="\(path)" fill="#000"/></svg>
            """
    }

    /// A binary greyscale Netpbm image (PGM, "P5"): black modules on white, `moduleSize` pixels each.
    package func netpbm(moduleSize: Int = 4, quietZone: Int = 4) -> [UInt8] {
        precondition(moduleSize > 0 && quietZone >= 0)
        let side = (size + 2 * quietZone) * moduleSize
        var image = Array("P5\n\(side) \(side)\n255\n".utf8)
        image.reserveCapacity(image.count + side * side)
        for row in 0..<side {
            let y = row / moduleSize - quietZone
            for column in 0..<side {
                let x = column / moduleSize - quietZone
                let dark = (0..<size).contains(x) && (0..<size).contains(y) && isDark(x: x, y: y)
                image.append(dark ? 0 : 255)
            }
        }
        return image
    }
}

extension QRCode {
    /// Table 1's codeword count per version, counted rather than copied: every module the function patterns
    /// leave is a data bit; the 0, 3, 4 or 7 left over after whole codewords are remainder bits (7.7.3).
    package static let totalCodewords: [Int] = (1...40).map { Grid(version: $0).function.count { !$0 } / 8 }

    package static func dataCodewords(version: Int, _ correction: Correction) -> Int {
        totalCodewords[version - 1] - blockCount(version: version, correction) * correctionCodewordsPerBlock(version: version, correction)
    }

    /// The byte mode indicator 0100 (Table 2), the character count in 8 bits up to version 9 and 16 after
    /// (Table 3), then the bytes.
    package static func bitsNeeded(_ byteCount: Int, version: Int) -> Int {
        4 + (version <= 9 ? 8 : 16) + 8 * byteCount
    }

    package static func byteCapacity(version: Int, _ correction: Correction) -> Int {
        (dataCodewords(version: version, correction) * 8 - bitsNeeded(0, version: version)) / 8
    }

    /// The penalty score of 7.8.3, Table 11: N1 = 3 for a run of five same-coloured modules in a row or column
    /// plus 1 per module past five; N2 = 3 for each 2×2 block of one colour; N3 = 40 for each dark-light-dark
    /// 1:1:3:1:1 pattern with four light modules before or after it (once if both; the quiet zone counts as
    /// light); N4 = 10 for each whole 5 % the dark share is away from 50 %.
    package static func penalty(_ dark: [Bool], size: Int) -> Int {
        var score = 0
        for line in 0..<size {
            for horizontal in [true, false] {
                let modules = (0..<size).map { horizontal ? dark[line * size + $0] : dark[$0 * size + line] }
                var runStart = 0
                for index in 1...size where index == size || modules[index] != modules[runStart] {
                    if index - runStart >= 5 { score += index - runStart - 2 }
                    runStart = index
                }
                func light(_ range: Range<Int>) -> Bool { range.allSatisfy { !(0..<size).contains($0) || !modules[$0] } }
                for start in 0..<(size - 6) where modules[start..<start + 7].elementsEqual([true, false, true, true, true, false, true]) {
                    if light(start - 4..<start) || light(start + 7..<start + 11) { score += 40 }
                }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = dark[y * size + x]
                if dark[y * size + x + 1] == colour && dark[(y + 1) * size + x] == colour && dark[(y + 1) * size + x + 1] == colour { score += 3 }
            }
        }
        let darkCount = dark.count { $0 }
        score += 10 * (abs(darkCount * 20 - dark.count * 10) / dark.count)
        return score
    }

    /// The final codeword sequence (7.4–7.6): the data bit stream cut into codewords and padded, split into
    /// blocks (the short ones first), each block's error correction appended, then both interleaved.
    package static func codewords(for bytes: [UInt8], version: Int, _ correction: Correction) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, count: Int) {
            for bit in stride(from: count - 1, through: 0, by: -1) { bits.append(value >> bit & 1 == 1) }
        }
        append(0b0100, count: 4)
        append(bytes.count, count: bitsNeeded(0, version: version) - 4)
        for byte in bytes { append(Int(byte), count: 8) }
        let capacity = dataCodewords(version: version, correction)
        // The terminator, up to four zero bits (7.4.9), then zeros to the codeword boundary (7.4.10).
        append(0, count: min(4, capacity * 8 - bits.count))
        append(0, count: (8 - bits.count % 8) % 8)
        var data = stride(from: 0, to: bits.count, by: 8).map { start in bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) } }
        // The pad codewords 11101100 and 00010001, alternately, fill the capacity (7.4.10).
        for index in 0..<(capacity - data.count) { data.append(index.isMultiple(of: 2) ? 0xEC : 0x11) }

        let blocks = blockCount(version: version, correction)
        let correctionCount = correctionCodewordsPerBlock(version: version, correction)
        let longBlocks = totalCodewords[version - 1] % blocks
        let shortLength = capacity / blocks
        var dataBlocks: [ArraySlice<UInt8>] = []
        var start = 0
        for block in 0..<blocks {
            let length = shortLength + (block >= blocks - longBlocks ? 1 : 0)
            dataBlocks.append(data[start..<start + length])
            start += length
        }
        let correctionBlocks = dataBlocks.map { ReedSolomon.errorCorrection(for: Array($0), count: correctionCount) }
        var sequence: [UInt8] = []
        for index in 0...shortLength {
            for block in dataBlocks where index < block.count { sequence.append(block[block.startIndex + index]) }
        }
        for index in 0..<correctionCount {
            for block in correctionBlocks { sequence.append(block[index]) }
        }
        return sequence
    }
}

/// The module matrix while it is built: which modules are dark, and which belong to function patterns (and so
/// are neither data nor masked).
private struct Grid {
    let size: Int
    var dark: [Bool]
    var function: [Bool]

    /// The function patterns (6.3): finders with their separators, timing, alignment, the dark module, and
    /// the areas the format and version information will take.
    init(version: Int) {
        size = 17 + 4 * version
        dark = Array(repeating: false, count: size * size)
        function = dark
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            // A 7×7 finder centred on (x, y): dark at Chebyshev distance 0, 1 and 3, light at 2; its
            // 1-module light separator (distance 4) is clipped by the edge.
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                    let distance = max(abs(dx), abs(dy))
                    set(x + dx, y + dy, dark: distance != 2 && distance != 4)
                }
            }
        }
        let centres = QRCode.alignmentCentres[version - 1]
        for y in centres {
            // Only the finder patterns are drawn yet: the three centres inside them are skipped.
            for x in centres where !function[y * size + x] {
                for dy in -2...2 {
                    for dx in -2...2 { set(x + dx, y + dy, dark: max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // The timing patterns cross the alignment patterns on row and column 6 (centred on even indices, as
        // the timing's dark modules are), so drawing them after does not change those.
        for index in 8..<(size - 8) {
            set(index, 6, dark: index.isMultiple(of: 2))
            set(6, index, dark: index.isMultiple(of: 2))
        }
        // Reserved now, written once the mask is known; the dark module (7.9.1) sits beside the lower copy.
        drawFormat(0)
        set(8, size - 8, dark: true)
        if version >= 7 {
            let bits = QRCode.versionBits(version)
            // Two 6×3 blocks (7.10, Figure 27): bit i at row i / 3 of the upper right block, in its column
            // i % 3, and transposed in the lower left.
            for index in 0..<18 {
                let bit = bits >> index & 1 == 1
                set(size - 11 + index % 3, index / 3, dark: bit)
                set(index / 3, size - 11 + index % 3, dark: bit)
            }
        }
    }

    mutating func set(_ x: Int, _ y: Int, dark isDark: Bool) {
        dark[y * size + x] = isDark
        function[y * size + x] = true
    }

    /// The format bits in both copies (7.9.1); bit 14 is the first level bit. One copy goes round the top left
    /// finder, bit 14 first, along row 8 from the left edge and then up column 8, stepping over the timing
    /// patterns; the other is split between column 8 by the bottom left finder (bits 14–8, from the bottom
    /// edge up) and row 8 by the top right one (bits 7–0, towards the right edge).
    mutating func drawFormat(_ bits: Int) {
        for index in 0..<15 {
            let bit = bits >> index & 1 == 1
            switch index {
            case 0..<6: set(8, index, dark: bit)
            case 6..<8: set(8, index + 1, dark: bit)
            case 8: set(7, 8, dark: bit)
            default: set(14 - index, 8, dark: bit)
            }
            if index < 8 { set(size - 1 - index, 8, dark: bit) } else { set(8, size - 15 + index, dark: bit) }
        }
    }

    /// The codewords, most significant bit first, in two-module-wide columns from the right edge, upward then
    /// downward in turn, the right module before the left, skipping function modules and the vertical timing
    /// column (7.7.3). Modules left over are the remainder bits, zero (light).
    mutating func place(_ codewords: [UInt8]) {
        var index = 0
        var right = size - 1
        var upward = true
        while right > 0 {
            if right == 6 { right = 5 }
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !function[y * size + x] {
                    dark[y * size + x] = index < codewords.count * 8 && codewords[index / 8] >> (7 - index % 8) & 1 == 1
                    index += 1
                }
            }
            upward.toggle()
            right -= 2
        }
    }

    mutating func apply(_ mask: QRCode.Mask, _ correction: QRCode.Correction) {
        for y in 0..<size {
            for x in 0..<size where !function[y * size + x] && mask.flips(i: y, j: x) { dark[y * size + x].toggle() }
        }
        drawFormat(QRCode.formatBits(correction, mask))
    }
}
