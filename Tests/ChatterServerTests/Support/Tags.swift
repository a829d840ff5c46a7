import Testing

/// What a suite needs beyond the clone. CI's service pass runs exactly the suites with these tags, with the
/// servers started (`swift test --filter tag:bothDatabases --filter tag:smtp --filter tag:zbar`), and
/// `.ci/service-suites` fails the run if a suite that uses a store backend is not tagged `bothDatabases`.
/// Without the servers (a newcomer's `swift test`) the PostgreSQL cases are not generated and the rest skip,
/// saying why.
extension Tag {
    /// Runs against every store backend that can run here (`StoreBackend.available`): SQLite always,
    /// PostgreSQL when a test server is named.
    @Tag static var bothDatabases: Self
    /// Needs the SMTP test server (`SMTPTestServer`).
    @Tag static var smtp: Self
    /// Needs zbar's decoder to read QR codes back.
    @Tag static var zbar: Self
}
