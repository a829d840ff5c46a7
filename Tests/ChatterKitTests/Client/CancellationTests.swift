import ChatterKit
import Foundation
import Testing

/// A request given up by its task is `ChatterError.cancelled`, however the transport says it: apps show
/// nothing for it, where "Cannot reach the server" would be wrong.
@Suite struct CancellationTests {
    /// Throws what it is given, as URLSession would.
    struct FailingTransport: HTTPTransport {
        let error: any Error & Sendable
        func send(_ request: TransportRequest) async throws -> TransportResponse { throw error }
    }

    /// Waits until its task is cancelled, then fails as a socket torn down under it would (or, with
    /// `.cancelled`, as URLSession reports a cancelled task).
    struct TornDownTransport: HTTPTransport {
        var code = URLError.Code.networkConnectionLost
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            while !Task.isCancelled { await Task.yield() }
            throw URLError(code)
        }
    }

    func outcome(_ transport: any HTTPTransport) async -> ChatterError? {
        let api = ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!, transport: transport)
        do {
            _ = try await api.exchange("GET", "/v1/me")
            return nil
        } catch {
            return error as? ChatterError
        }
    }

    @Test func urlSessionsCancellationIsCancelled() async {
        let task = Task { await outcome(TornDownTransport(code: .cancelled)) }
        task.cancel()
        #expect(await task.value == .cancelled)
        #expect(await outcome(FailingTransport(error: CancellationError())) == .cancelled)
    }

    /// URLSession also says `.cancelled` when a delegate refused the server (a certificate pin that does not
    /// match): in a task nobody cancelled, that is a failure the user must see, not nothing.
    @Test func urlSessionsCancelledInALiveTaskIsAFailureToShow() async {
        let error = await outcome(FailingTransport(error: URLError(.cancelled)))
        guard case .network = error else {
            Issue.record("a request refused under a live task must be shown, got \(String(describing: error))")
            return
        }
        #expect(ChatterError.banner(for: error!) != nil)
    }

    @Test func otherFailuresOfALiveTaskAreNetworkErrors() async {
        guard case .network = await outcome(FailingTransport(error: URLError(.cannotConnectToHost))) else {
            Issue.record("a refused connection is not a network error")
            return
        }
    }

    @Test func anyFailureAfterTheTaskWasCancelledIsCancelled() async {
        let task = Task { await outcome(TornDownTransport()) }
        task.cancel()
        #expect(await task.value == .cancelled)
    }
}
