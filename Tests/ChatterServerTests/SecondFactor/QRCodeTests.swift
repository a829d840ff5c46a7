import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// The QR Code encoder against ISO/IEC 18004:2015's tables, its worked example and its symbol layout, and
/// against a real decoder (zbar's `zbarimg`) where one is installed.
@Suite struct QRCodeTests {
    /// Table 7, the byte mode column: the most bytes each version 1–40 holds at each level.
    static let byteCapacity: [QRCode.Correction: [Int]] = [
        .low: [
            17, 32, 53, 78, 106, 134, 154, 192, 230, 271, 321, 367, 425, 458, 520, 586, 644, 718, 792, 858,
            929, 1003, 1091, 1171, 1273, 1367, 1465, 1528, 1628, 1732, 1840, 1952, 2068, 2188, 2303, 2431, 2563, 2699, 2809, 2953,
        ],
        .medium: [
            14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560, 624, 666,
            711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370, 1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331,
        ],
        .quartile: [
            11, 20, 32, 46, 60, 74, 86, 108, 130, 151, 177, 203, 241, 258, 292, 322, 364, 394, 442, 482,
            509, 565, 611, 661, 715, 751, 805, 868, 908, 982, 1030, 1112, 1168, 1228, 1283, 1351, 1423, 1499, 1579, 1663,
        ],
        .high: [
            7, 14, 24, 34, 44, 58, 64, 84, 98, 119, 137, 155, 177, 194, 220, 250, 280, 310, 338, 382,
            403, 439, 461, 511, 535, 593, 625, 658, 698, 742, 790, 842, 898, 958, 983, 1051, 1093, 1139, 1219, 1273,
        ],
    ]

    @Test func theSmallestVersionThatHoldsTheBytesIsChosen() throws {
        for correction in QRCode.Correction.allCases {
            let capacity = try #require(Self.byteCapacity[correction])
            #expect((1...40).map { QRCode.byteCapacity(version: $0, correction) } == capacity, "\(correction)")
            let full = try QRCode(bytes: Array(repeating: 0x41, count: capacity[0]), correction: correction)
            #expect(full.version == 1 && full.size == 21, "\(correction)")
            let over = try QRCode(bytes: Array(repeating: 0x41, count: capacity[0] + 1), correction: correction)
            #expect(over.version == 2 && over.size == 25, "\(correction)")
        }
        #expect(try QRCode(bytes: []).version == 1)
        // 250 bytes, about the longest enrolment URI: 9-L holds 230 and 10-L 271, 10-M 213 and 11-M 251,
        // 13-Q 241 and 14-Q 258, 15-H 220 and 16-H 250.
        let long = [UInt8](repeating: 0x61, count: 250)
        for (correction, version) in [(QRCode.Correction.low, 10), (.medium, 11), (.quartile, 14), (.high, 16)] {
            let code = try QRCode(bytes: long, correction: correction)
            #expect(code.version == version && code.size == 17 + 4 * version, "\(correction)")
        }
    }

    @Test func moreThanVersion40HoldsIsRefused() throws {
        let full = try QRCode(bytes: Array(repeating: 0x7A, count: 1273), correction: .high)
        #expect(full.version == 40 && full.size == 177)
        for correction in QRCode.Correction.allCases {
            let capacity = try #require(Self.byteCapacity[correction]?.last)
            #expect(throws: QRCode.TooLong.self, "\(correction)") {
                try QRCode(bytes: Array(repeating: 0x7A, count: capacity + 1), correction: correction)
            }
        }
    }

    /// Table 1: the codewords (data and error correction) of each version, which the encoder counts from the
    /// modules its function patterns leave free.
    @Test func everyVersionHasTheCodewordCountOfTable1() {
        #expect(
            QRCode.totalCodewords == [
                26, 44, 70, 100, 134, 172, 196, 242, 292, 346, 404, 466, 532, 581, 655, 733, 815, 901, 991, 1085,
                1156, 1258, 1364, 1474, 1588, 1706, 1828, 1921, 2051, 2185, 2323, 2465, 2611, 2761, 2876, 3034, 3196, 3362, 3532, 3706,
            ])
    }

    @Test func finderTimingAlignmentPatternsAndTheDarkModuleAreWhereTheStandardPutsThem() throws {
        for (version, correction) in [(1, QRCode.Correction.high), (7, .medium), (15, .low)] {
            let code = try QRCode(bytes: Array(repeating: 0x55, count: Self.byteCapacity[correction]![version - 1]), correction: correction)
            let size = code.size
            #expect(code.version == version && size == 17 + 4 * version)
            // 6.3.3: a 7×7 finder (dark ring, light ring, dark 3×3 core) in three corners, each with a light
            // 1-module separator on its inner sides.
            for (left, top) in [(0, 0), (size - 7, 0), (0, size - 7)] {
                for dy in -1...7 {
                    for dx in -1...7 where (0..<size).contains(left + dx) && (0..<size).contains(top + dy) {
                        let ring = max(abs(dx - 3), abs(dy - 3))
                        #expect(code.isDark(x: left + dx, y: top + dy) == (ring != 2 && ring != 4), "v\(version) finder at (\(left), \(top))")
                    }
                }
            }
            // 6.3.5: row 6 and column 6 alternate between the finders, dark on even indices.
            for index in 8...(size - 9) {
                #expect(code.isDark(x: index, y: 6) == index.isMultiple(of: 2) && code.isDark(x: 6, y: index) == index.isMultiple(of: 2))
            }
            // 6.3.6, Annex E: versions 2 and up have an alignment pattern centred 7 modules in from the bottom right.
            if version >= 2 {
                for dy in -2...2 {
                    for dx in -2...2 { #expect(code.isDark(x: size - 7 + dx, y: size - 7 + dy) == (max(abs(dx), abs(dy)) != 1)) }
                }
            }
            // 7.9.1: the module above the lower left format bits is always dark.
            #expect(code.isDark(x: 8, y: size - 8))
        }
    }

    /// Annex C, Table C.1: the format information bit sequences, masked with 101010000010010 (grouped as the
    /// five data bits and the ten BCH bits they were before masking).
    @Test func formatInformationIsTheBCHCodeOfAnnexC() {
        let expected: [(QRCode.Correction, QRCode.Mask, Int)] = [
            (.low, .m000, 0b11101_1111000100), (.low, .m111, 0b11010_0101110110), (.medium, .m000, 0b10101_0000010010),
            (.medium, .m101, 0b10000_0011001110), (.quartile, .m010, 0b01111_1100110001), (.quartile, .m111, 0b01010_1111101101),
            (.high, .m000, 0b00101_1010001001), (.high, .m100, 0b00001_1101100010),
        ]
        for (correction, mask, bits) in expected {
            #expect(QRCode.formatBits(correction, mask) == bits, "\(correction) \(mask)")
        }
    }

    /// Annex D, Table D.1: the version information bit sequences.
    @Test func versionInformationIsTheBCHCodeOfAnnexD() {
        #expect(QRCode.versionBits(7) == 0x07C94)
        #expect(QRCode.versionBits(8) == 0x085BC)
        #expect(QRCode.versionBits(9) == 0x09A99)
        #expect(QRCode.versionBits(40) == 0x28C69)
    }

    /// Both copies of the format information (7.9.1, Figure 25) and, from version 7, of the version information
    /// (7.10, Figure 27), read back from the positions the figures give, bit 14 (or 17) first.
    @Test func theSymbolCarriesItsFormatAndVersionInformationTwice() throws {
        for (count, correction) in [(10, QRCode.Correction.quartile), (150, .high), (250, .medium), (900, .low)] {
            let code = try QRCode(bytes: Array(repeating: 0x33, count: count), correction: correction)
            let size = code.size
            func read(_ positions: [(x: Int, y: Int)]) -> Int { positions.reduce(0) { $0 << 1 | (code.isDark(x: $1.x, y: $1.y) ? 1 : 0) } }
            let nearTopLeft = (0...5).map { (x: $0, y: 8) } + [(x: 7, y: 8), (x: 8, y: 8), (x: 8, y: 7)] + (0...5).reversed().map { (x: 8, y: $0) }
            let split = (1...7).map { (x: 8, y: size - $0) } + (1...8).reversed().map { (x: size - $0, y: 8) }
            #expect(read(nearTopLeft) == QRCode.formatBits(correction, code.mask))
            #expect(read(split) == QRCode.formatBits(correction, code.mask))
            guard code.version >= 7 else { continue }
            // Bit i sits in row i / 3, column size − 11 + i % 3 at the top right, and transposed at the bottom left.
            let topRight = (0..<18).reversed().map { (x: size - 11 + $0 % 3, y: $0 / 3) }
            #expect(read(topRight) == QRCode.versionBits(code.version))
            #expect(read(topRight.map { (x: $0.y, y: $0.x) }) == QRCode.versionBits(code.version))
        }
    }

    /// Annex I.2, the worked example ("01234567" as 1-M): its 16 data codewords and the 10 error correction
    /// codewords the standard prints for them.
    @Test func reedSolomonGivesTheWorkedExamplesCodewords() {
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        #expect(ReedSolomon.errorCorrection(for: data, count: 10) == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
        // Annex A: the generator of degree 10 is x^10 + α^251 x^9 + α^67 x^8 + α^46 x^7 + α^61 x^6 + α^118 x^5
        // + α^70 x^4 + α^64 x^3 + α^94 x^2 + α^32 x + α^45.
        #expect(ReedSolomon.generator(degree: 10) == [251, 67, 46, 61, 118, 70, 64, 94, 32, 45].map(ReedSolomon.power))
    }

    /// 7.6: with blocks of unequal length (5-Q: two of 15 data codewords, then two of 16, each with 18 error
    /// correction codewords, Table 9), the data codewords go first, one from each block in turn, then the
    /// error correction codewords the same way.
    @Test func blocksAreInterleavedShortOnesFirst() {
        let bytes = (0..<58).map { UInt8($0 * 37 & 0xFF) }
        // 7.4: the mode indicator 0100, the count in 8 bits, the bytes and the terminator 0000 make 60 whole
        // codewords; the pad codewords 11101100 00010001 fill the 62 that 5-Q holds.
        func bits(_ value: Int, _ count: Int) -> [Int] { (0..<count).reversed().map { value >> $0 & 1 } }
        let stream = bits(0b0100, 4) + bits(58, 8) + bytes.flatMap { bits(Int($0), 8) } + bits(0, 4)
        let data = stride(from: 0, to: stream.count, by: 8).map { UInt8(stream[$0..<$0 + 8].reduce(0) { $0 << 1 | $1 }) } + [0xEC, 0x11]
        let blocks = [data[0..<15], data[15..<30], data[30..<46], data[46..<62]].map(Array.init)
        var expected = (0..<16).flatMap { index in blocks.compactMap { index < $0.count ? $0[index] : nil } }
        let corrections = blocks.map { ReedSolomon.errorCorrection(for: $0, count: 18) }
        expected += (0..<18).flatMap { index in corrections.map { $0[index] } }
        #expect(QRCode.codewords(for: bytes, version: 5, .quartile) == expected)
    }

    /// Table 11's rules on 21×21 matrices scored by hand.
    @Test func thePenaltyRulesScoreAsTable11Says() {
        // All light: every one of the 42 lines is one run of 21 (N1: 3 + 16 each), all 400 2×2 blocks are one
        // colour (N2: 3 each), and 0 % dark is ten 5 % steps from 50 % (N4: 100).
        var dark = [Bool](repeating: false, count: 21 * 21)
        #expect(QRCode.penalty(dark, size: 21) == 42 * 19 + 400 * 3 + 100)
        // A checkerboard: no runs, no blocks, no 1:1:3:1:1, and 221 of 441 dark is within 5 % of half.
        #expect(QRCode.penalty((0..<441).map { ($0 / 21 + $0 % 21).isMultiple(of: 2) }, size: 21) == 0)
        // 1011101 in columns 7–13 of row 10, light around it (N3: 40, once). N1: row 10 keeps two light runs of
        // 7 (5 each); the 5 columns with a dark module have two runs of 10 (8 each); the other 36 lines score
        // 19. N2: the 16 blocks on rows 9–11 that reach a dark column are mixed. N4: 5 of 441 dark, 90.
        for column in [7, 9, 10, 11, 13] { dark[10 * 21 + column] = true }
        #expect(QRCode.penalty(dark, size: 21) == (2 * 5 + 5 * 16 + 36 * 19) + (400 - 16) * 3 + 40 + 90)
    }

    /// 7.8.3: of the eight masks, the one with the lowest penalty is used.
    @Test func theMaskWithTheLowestPenaltyIsChosen() throws {
        for (count, correction) in [(5, QRCode.Correction.high), (60, .quartile), (131, .medium), (400, .low)] {
            let bytes = (0..<count).map { UInt8(($0 * 131 + 7) & 0xFF) }
            let chosen = try QRCode(bytes: bytes, correction: correction)
            let penalties = try QRCode.Mask.allCases.map { try QRCode(bytes: bytes, correction: correction, mask: $0).penalty }
            #expect(chosen.penalty == penalties.min() && penalties.firstIndex(of: chosen.penalty) == chosen.mask.rawValue, "\(penalties)")
        }
    }

    @Test func theSVGIsOnePathOfTheDarkModulesOnWhite() throws {
        let code = try QRCode(bytes: Array("otpauth://totp/Chatter:ada?secret=JBSWY3DPEHPK3PXP&issuer=Chatter".utf8))
        let svg = code.svg(moduleSize: 5, quietZone: 4)
        let side = code.size + 8
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" width=\"\(side * 5)\" height=\"\(side * 5)\""))
        #expect(svg.contains("role=\"img\"") && svg.contains("shape-rendering=\"crispEdges\"") && svg.hasSuffix("</svg>"))
        #expect(svg.components(separatedBy: "<path").count == 2 && svg.contains("<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"))
        // Every run is `M{x} {y}h{n}v1h-{n}z`; together they cover exactly the dark modules, offset by the quiet zone.
        let path = try #require(svg.split(separator: "d=\"").last?.split(separator: "\"").first)
        var covered = Set<[Int]>()
        for run in path.split(separator: "z") {
            let numbers = run.split(whereSeparator: { "Mhv- ".contains($0) }).compactMap { Int($0) }
            try #require(numbers.count == 5 && numbers[2] == numbers[4] && numbers[3] == 1, "\(run)")
            for x in numbers[0]..<(numbers[0] + numbers[2]) { covered.insert([x - 4, numbers[1] - 4]) }
        }
        let dark = Set((0..<code.size).flatMap { y in (0..<code.size).filter { code.isDark(x: $0, y: y) }.map { [$0, y] } })
        #expect(covered == dark)
    }

    @Test func theNetpbmImageIsABinaryGreymapOfTheModules() throws {
        let code = try QRCode(bytes: Array("hello".utf8), correction: .low)
        let image = code.netpbm(moduleSize: 3, quietZone: 2)
        let side = (code.size + 4) * 3
        let header = Array("P5\n\(side) \(side)\n255\n".utf8)
        #expect(Array(image.prefix(header.count)) == header && image.count == header.count + side * side)
        let pixels = Array(image.dropFirst(header.count))
        for y in 0..<side {
            for x in 0..<side {
                let (mx, my) = (x / 3 - 2, y / 3 - 2)
                let dark = (0..<code.size).contains(mx) && (0..<code.size).contains(my) && code.isDark(x: mx, y: my)
                #expect(pixels[y * side + x] == (dark ? 0 : 255))
            }
        }
    }

    /// zbar reads back what was encoded: a realistic enrolment URI at each level, and printable ASCII of
    /// lengths that need versions 1, 2, 7 (the first with version information), 10 (16-bit count), 15, 22 and
    /// 40 at each level. Printable ASCII because zbarimg re-encodes other bytes as text.
    @Test(.tags(.zbar)) func aRealDecoderReadsEverySymbolBack() async throws {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/zbarimg" }
        guard let zbarimg = (path + ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"]).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("skipping the zbar check: zbarimg is not installed")
            return
        }
        let uri = "otpauth://totp/Chatter:alice%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Chatter&algorithm=SHA1&digits=6&period=30"
        var random = SplitMix64(seed: 18004)
        var cases: [(text: String, correction: QRCode.Correction, version: Int?)] = QRCode.Correction.allCases.map { (uri, $0, nil) }
        for correction in QRCode.Correction.allCases {
            let capacity = try #require(Self.byteCapacity[correction])
            for version in [1, 2, 7, 10, 15, 22, 40] {
                let fewest = version == 1 ? 1 : capacity[version - 2] + 1
                let count = Int.random(in: fewest...capacity[version - 1], using: &random)
                cases.append((String((0..<count).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &random))) }), correction, version))
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qrcode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, (text, correction, version)) in cases.enumerated() {
            let code = try QRCode(bytes: Array(text.utf8), correction: correction)
            if let version { #expect(code.version == version, "\(correction), \(text.utf8.count) bytes") }
            let file = directory.appendingPathComponent("\(index).pgm")
            try Data(code.netpbm()).write(to: file)
            let decoded = try await Self.run(zbarimg, ["--raw", "-q", file.path])
            #expect(decoded == text + "\n", "version \(code.version) \(correction), mask \(code.mask), \(text.utf8.count) bytes: \(text.debugDescription)")
        }
    }

    /// What the program writes to standard output, or nil when it fails (zbarimg exits 4 when it finds no symbol).
    /// On Linux through `ChildProcess`, as Foundation's `Process` can crash a process with many open files there.
    static func run(_ program: String, _ arguments: [String]) async throws -> String? {
        #if os(Linux)
            let outcome = try await ChildProcess.run(program, arguments, timeout: .seconds(60))
            return outcome.status == 0 ? String(decoding: outcome.output, as: UTF8.self) : nil
        #else
            let process = Process()
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
        #endif
    }
}

/// A seeded generator, so that a failing input can be made again.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
