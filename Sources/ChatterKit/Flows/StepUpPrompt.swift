import Foundation
import Observation

/// Actions that matter (deleting the account, changing the password, signing out everywhere, adding a
/// passkey) answer `step_up_required` when the session has not passed the second factor in the last ten
/// minutes. `perform` runs such an action; when it is asked, `isPrompting` turns true for a code prompt,
/// and `submit()` proves the second factor and runs the action again.
@MainActor @Observable
public final class StepUpPrompt {
    /// Show the code prompt.
    public private(set) var isPrompting = false
    /// The code as typed: the app's code or a recovery code.
    public var code = ""
    /// A request is on its way.
    public private(set) var isLoading = false
    /// The last failure, for a banner.
    public private(set) var errorBanner: String?

    @ObservationIgnored let client: ChatterClient
    @ObservationIgnored private var pending: (@MainActor () async throws -> Void)?

    /// A prompt over `client`.
    public init(client: ChatterClient) { self.client = client }

    /// Runs `action`; returns whether it completed. When chatterd asks for a step-up the prompt shows and
    /// the action waits for `submit()`; any other failure is the banner.
    @discardableResult
    public func perform(_ action: @escaping @MainActor () async throws -> Void) async -> Bool {
        errorBanner = nil
        do {
            try await action()
            return true
        } catch let error as ChatterError where error.isStepUpRequired {
            pending = action
            isPrompting = true
        } catch {
            errorBanner = ChatterError.banner(for: error)
        }
        return false
    }

    /// Proves the second factor with `code`, then runs the waiting action; returns whether it completed.
    @discardableResult
    public func submit() async -> Bool {
        guard let action = pending, SecondFactorCodeKind(code) != nil, !isLoading else { return false }
        isLoading = true
        errorBanner = nil
        defer { isLoading = false }
        do {
            try await client.stepUp(code: code)
            isPrompting = false
            pending = nil
            code = ""
            try await action()
            return true
        } catch {
            code = ""
            errorBanner = ChatterError.banner(for: error)
            return false
        }
    }

    /// Gives up on the waiting action.
    public func cancel() {
        pending = nil
        isPrompting = false
        code = ""
    }
}
