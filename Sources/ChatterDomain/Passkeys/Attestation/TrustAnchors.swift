import ChatterCore
import Foundation
import X509

/// Roots attestation chains may end in. Apple's is built in: every Apple device's `apple` attestation
/// chains to it, and it is published for this use.
public enum TrustAnchors {
    /// "Apple WebAuthn Root CA", from https://www.apple.com/certificateauthority/Apple_WebAuthn_Root_CA.pem
    /// (P-384, valid 2020-03-18 to 2045-03-15; SHA-256 of the DER
    /// 0915dd5c07a28db549d1f677bb5a75d4bfbe9561a773424327762e9e02f9bb29, which a test checks).
    public static let appleWebAuthnRootPEM = """
        -----BEGIN CERTIFICATE-----
        MIICEjCCAZmgAwIBAgIQaB0BbHo84wIlpQGUKEdXcTAKBggqhkjOPQQDAzBLMR8w
        HQYDVQQDDBZBcHBsZSBXZWJBdXRobiBSb290IENBMRMwEQYDVQQKDApBcHBsZSBJ
        bmMuMRMwEQYDVQQIDApDYWxpZm9ybmlhMB4XDTIwMDMxODE4MjEzMloXDTQ1MDMx
        NTAwMDAwMFowSzEfMB0GA1UEAwwWQXBwbGUgV2ViQXV0aG4gUm9vdCBDQTETMBEG
        A1UECgwKQXBwbGUgSW5jLjETMBEGA1UECAwKQ2FsaWZvcm5pYTB2MBAGByqGSM49
        AgEGBSuBBAAiA2IABCJCQ2pTVhzjl4Wo6IhHtMSAzO2cv+H9DQKev3//fG59G11k
        xu9eI0/7o6V5uShBpe1u6l6mS19S1FEh6yGljnZAJ+2GNP1mi/YK2kSXIuTHjxA/
        pcoRf7XkOtO4o1qlcaNCMEAwDwYDVR0TAQH/BAUwAwEB/zAdBgNVHQ4EFgQUJtdk
        2cV4wlpn0afeaxLQG2PxxtcwDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2cA
        MGQCMFrZ+9DsJ1PW9hfNdBywZDsWDbWFp28it1d/5w2RPkRX3Bbn/UbDTNLx7Jr3
        jAGGiQIwHFj+dJZYUJR786osByBelJYsVZd2GbHQu209b5RCmGQ21gpSAk9QZW4B
        1bWeT0vT
        -----END CERTIFICATE-----
        """

    // The PEM above is a constant checked by a test, so parsing it cannot fail at run time.
    public static let appleWebAuthnRoot = try! Certificate(pemEncoded: appleWebAuthnRootPEM)

    /// Every certificate in PEM text (an operator's anchors file may hold several).
    public static func certificates(pem: String) throws -> [Certificate] {
        let blocks = pem.components(separatedBy: "-----END CERTIFICATE-----").dropLast()
        let certificates = try blocks.map { try Certificate(pemEncoded: $0 + "-----END CERTIFICATE-----") }
        guard !certificates.isEmpty else { throw AttestationStatement.Failure("no certificate in the PEM text") }
        return certificates
    }
}
