import Hummingbird
import Metrics
import Synchronization

/// Counts requests and times them by route, method and status. Hummingbird's `MetricsMiddleware` does the
/// same and more (an active-request gauge, timing until the body is written); this one records once, when
/// the handler has answered, and finds its two metrics with one lookup of a small key, because it runs on
/// every request (measured in `bench/run` with `CHATTERD_METRICS=off` against on).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let status: HTTPResponse.Status
        do {
            let response = try await next(request, context)
            status = response.status
            RequestMetrics.record(route: context.endpointPath, method: request.method, status: status, since: started)
            return response
        } catch {
            status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            RequestMetrics.record(route: context.endpointPath, method: request.method, status: status, since: started)
            throw error
        }
    }
}

/// `http_requests_total` and `http_server_request_duration_seconds`, kept per route, method and status.
enum RequestMetrics {
    struct Key: Hashable {
        let route: String?
        let method: HTTPRequest.Method
        let status: Int
    }

    private static let kept = Mutex<[Key: (count: Counter, time: Metrics.Timer)]>([:])

    static func record(route: String?, method: HTTPRequest.Method, status: HTTPResponse.Status, since started: ContinuousClock.Instant) {
        let key = Key(route: route, method: method, status: status.code)
        let metrics = kept.withLock { $0[key] } ?? make(key)
        metrics.count.increment()
        metrics.time.recordInterval(since: started)
    }

    private static func make(_ key: Key) -> (count: Counter, time: Metrics.Timer) {
        let dimensions = [("http_route", key.route ?? "unmatched"), ("http_request_method", key.method.rawValue), ("http_response_status_code", String(key.status))]
        let made = (
            count: Counter(label: "http_requests_total", dimensions: dimensions),
            time: Metrics.Timer(label: "http_server_request_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
        )
        if ChatterMetrics.bootstrapped { kept.withLock { $0[key] = made } }
        return made
    }
}
