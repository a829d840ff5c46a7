import ChatterCore

/// Reed–Solomon error correction as QR Code uses it (ISO/IEC 18004:2015, 7.5.2 and Annex A): codewords are
/// elements of GF(2^8) built on the primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D) with α = 2, and the
/// generator polynomial of degree n has the roots α^0 … α^(n−1).
package enum ReedSolomon {
    /// α^i for i in 0..<255, and the inverse map from each nonzero element to its i.
    private static let tables: (exponent: [UInt8], logarithm: [Int]) = {
        var exponent = [UInt8](repeating: 0, count: 255)
        var logarithm = [Int](repeating: 0, count: 256)
        var value = 1
        for power in 0..<255 {
            exponent[power] = UInt8(value)
            logarithm[value] = power
            value <<= 1
            if value > 0xFF { value ^= 0x11D }
        }
        return (exponent, logarithm)
    }()

    package static func power(_ exponent: Int) -> UInt8 {
        tables.exponent[exponent % 255]
    }

    package static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return power(tables.logarithm[Int(a)] + tables.logarithm[Int(b)])
    }

    /// The generator polynomial (x − α^0)(x − α^1)…(x − α^(degree−1)), highest power first, without its
    /// leading 1 (it is monic). In GF(2^8) subtraction is addition, so each factor is x + α^i.
    package static func generator(degree: Int) -> [UInt8] {
        var coefficients: [UInt8] = [1]
        for root in 0..<degree {
            var product = coefficients + [0]
            for (index, coefficient) in coefficients.enumerated() {
                product[index + 1] ^= multiply(coefficient, power(root))
            }
            coefficients = product
        }
        return Array(coefficients.dropFirst())
    }

    /// The `count` error correction codewords of one block: the remainder of data(x)·x^count divided by the
    /// generator, by long division one data codeword at a time.
    package static func errorCorrection(for data: [UInt8], count: Int) -> [UInt8] {
        let generator = generator(degree: count)
        var remainder = [UInt8](repeating: 0, count: count)
        for codeword in data {
            let factor = codeword ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in 0..<count {
                remainder[index] ^= multiply(generator[index], factor)
            }
        }
        return remainder
    }
}
