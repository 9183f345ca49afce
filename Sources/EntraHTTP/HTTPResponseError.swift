/// An error that renders itself as the answer its service gives: status, headers and body, in the
/// real service's format (AADSTS/AADB2C JSON, Graph's error JSON, the control API's documented shape, a
/// plain-text HTTP refusal). Callers answer with `error.response(in: trace)`, never a builder of their own.
///
/// `Trace` is what the answer quotes of the request it refuses (trace and correlation ids, the time);
/// an error that quotes nothing has `Void` and a plain `response`.
package protocol HTTPResponseError: Error {
    associatedtype Trace = Void
    func response(in trace: Trace) -> HTTPResponse
}

extension HTTPResponseError where Trace == Void {
    package var response: HTTPResponse { response(in: ()) }
}
