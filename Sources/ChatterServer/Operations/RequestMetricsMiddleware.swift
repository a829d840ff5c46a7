import ChatterCore
import ChatterDomain
import ChatterStorage
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

    private static let cache = Mutex<[Key: (count: Counter, time: Metrics.Timer)]>([:])

    static func record(route: String?, method: HTTPRequest.Method, status: HTTPResponse.Status, since started: ContinuousClock.Instant) {
        let key = Key(route: route, method: method, status: status.code)
        let metrics = cache.kept(key) {
            let dimensions = [
                ("http_route", route ?? "unmatched"), ("http_request_method", method.rawValue), ("http_response_status_code", String(status.code)),
            ]
            return (
                count: Counter(label: "http_requests_total", dimensions: dimensions),
                time: Metrics.Timer(label: "http_server_request_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
            )
        }
        metrics.count.increment()
        metrics.time.recordInterval(since: started)
    }
}
