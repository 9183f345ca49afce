package import ExchangeKernel
package import EntraHTTP
package import FoundationGaps
package import LocatedJSON
import IdentityPlatform

/// An error of Microsoft Graph. It renders itself as Graph does:
/// `{"error":{"code":…,"message":…,"innerError":{"date":…,"request-id":…,"client-request-id":…}}}` with its
/// status and headers (`WWW-Authenticate` on 401, `Retry-After` on 429).
///
/// The scenario engine builds one with the catalogue below (or its own code and message) and calls
/// `response(in:)` or `GraphHandler.render(_:for:context:)`.
package struct GraphError: HTTPResponseError, Sendable, Equatable {
    package var status: HTTPStatus
    package var code: String
    package var message: String
    /// `innerError.code`, which some workloads add (`throttledRequest` on SharePoint/OneDrive throttling).
    package var innerCode: String?
    /// Headers the error carries besides the ones every Graph answer has.
    package var headers: HTTPHeaders

    package init(status: HTTPStatus, code: String, message: String, innerCode: String? = nil, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.innerCode = innerCode
        self.headers = headers
    }

    /// The JSON body for one request.
    package func body(in trace: GraphTrace) -> JSONValue {
        var inner: [(String, JSONValue)] = []
        if let innerCode { inner.append(("code", .string(innerCode))) }
        inner += [
            ("date", .string(CivilTime(trace.date).isoSeconds)),
            ("request-id", .string(trace.requestID)),
            ("client-request-id", .string(trace.clientRequestID)),
        ]
        return .object([
            ("error", .object([
                ("code", .string(code)),
                ("message", .string(message)),
                ("innerError", .object(inner)),
            ])),
        ])
    }

    /// The complete answer: status, Graph's common headers, this error's own headers and the JSON body.
    package func response(in trace: GraphTrace) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: trace.commonHeaders, body: body(in: trace).bytes)
            .stating(StatedError(code: code, body: .init(error: code)))
        response.headers.set("Content-Type", "application/json")
        for field in headers { response.headers.set(field.name, field.value) }
        return response
    }
}

/// The ids and instant one Graph request is answered with; every error and success carries them.
package struct GraphTrace: Sendable, Equatable {
    /// Graph's `request-id`: new for every request.
    package var requestID: String
    /// The client's `client-request-id`, or the request id when the client sent none (as Graph does).
    package var clientRequestID: String
    package var date: Date

    package init(requestID: String, clientRequestID: String? = nil, date: Date) {
        self.requestID = requestID
        self.clientRequestID = clientRequestID ?? requestID
        self.date = date
    }

    /// `request-id`, `client-request-id`, `Date`, `x-ms-ags-diagnostic`, `Strict-Transport-Security`.
    package var commonHeaders: HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add("request-id", requestID)
        headers.add("client-request-id", clientRequestID)
        headers.add("x-ms-ags-diagnostic", #"{"ServerInfo":{"DataCenter":"FakeEntra","Slice":"E","Ring":"0","ScaleUnit":"000","RoleInstance":"FAKEENTRA0"}}"#)
        headers.add("Date", CivilTime(date).httpDate)
        return headers
    }
}
