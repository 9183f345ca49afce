/// Why a headless sign-in stopped before it delivered a result to the app. Each case knows its message
/// and the exit code `fakeentra browse --foreground` ends with.
package enum BrowseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not an absolute http(s) authorize URL with a `redirect_uri` (nor, given a user code, a device login URL).
    case badStartURL(String)
    /// The server could not be reached (connection, TLS, timeout).
    case transport(url: String, reason: String)
    /// A page the walker cannot go on from: no form, or an error status without one.
    case deadEnd(url: String, status: Int, excerpt: String)
    /// The same form came back again and again (a wrong password, a rule that never lets go), showing
    /// `shown` in its alert ("" when it showed none).
    case loop(formID: String, times: Int, shown: String)
    case tooManySteps(Int)
    /// The app's redirect listener could not be reached.
    case delivery(url: String, reason: String)

    package var description: String {
        switch self {
        case .badStartURL(let url): "not an authorize URL with a redirect_uri (nor a device login URL with --user-code): \(url)"
        case .transport(let url, let reason): "cannot reach \(url): \(reason)"
        case .deadEnd(let url, let status, let excerpt): "stuck at \(url) (HTTP \(status)), no form to go on with: \(excerpt)"
        case .loop(let formID, let times, let shown):
            shown.isEmpty ? "the form \"\(formID)\" came back \(times) times; giving up (wrong credentials?)"
                : "the page refused what was entered (the form \"\(formID)\" came back \(times) times): \(shown)"
        case .tooManySteps(let count): "no redirect to the app after \(count) pages"
        case .delivery(let url, let reason): "cannot deliver the result to the app at \(url): \(reason)"
        }
    }

    /// 64 for usage (EX_USAGE, as ArgumentParser's own usage errors), 3 for the server's transport, 4 for the pages, 5 for the app.
    package var exitCode: Int32 {
        switch self {
        case .badStartURL: 64
        case .transport: 3
        case .deadEnd, .loop, .tooManySteps: 4
        case .delivery: 5
        }
    }
}
