package import EntraHTTP
import EntraCrypto
package import FoundationGaps
package import LocatedJSON
package import ExchangeKernel
package import IdentityPlatform

/// One Graph request with everything its answer needs. Built once per request so every instant and id in
/// one answer agrees.
package struct GraphExchange: Sendable {
    package let request: HTTPRequest
    package let context: ConnectionFacts
    package let service: IdentityService
    package let options: GraphOptions
    package let trace: GraphTrace
    package let now: Date
    /// `https://host[:port]` as the client reached Graph: `@odata.nextLink` and photo links point here.
    package let origin: String
    /// Where the bearer challenge sends clients to sign in.
    package let authorityOrigin: String
    package let query: ODataQuery
    /// `v1.0` or `beta` (`v1.0` for UserInfo).
    package let version: String
    /// Where an error answered is noted (nil when rendered outside an exchange).
    package let receipt: ReceiptRecorder?

    package init(request: HTTPRequest, context: ConnectionFacts, service: IdentityService, options: GraphOptions, version: String = "v1.0",
                requestID: String = SecureRandom.guid(), receipt: ReceiptRecorder? = nil) {
        self.receipt = receipt
        self.request = request
        self.context = context
        self.service = service
        self.options = options
        self.now = service.clock.now()
        self.trace = GraphTrace(requestID: requestID, clientRequestID: request.headers["client-request-id"], date: now)
        let publicOrigin = PublicOrigin(request: request, context: context)
        self.origin = publicOrigin.url
        self.authorityOrigin = options.authorityOrigin
            ?? (options.isGraphHost(request) ? "https://login.microsoftonline.com" : publicOrigin.url)
        self.query = ODataQuery(request.query)
        self.version = version
    }

    /// `https://graph.microsoft.com/v1.0/$metadata`: the base of every `@odata.context` (Graph always names itself).
    package var metadataURL: String { "\(serviceRootURL)/$metadata" }
    /// Graph's own service root, which `@odata.id` and navigation links name whatever host answered.
    package var serviceRootURL: String { "https://graph.microsoft.com/\(version)" }

    /// A 200 JSON answer with Graph's headers. A collection page's size and `@odata.nextLink` go to the
    /// receipt, where a conformance case sees whether the client followed every page.
    package func ok(_ body: JSONValue, extraHeaders: HTTPHeaders = [:]) -> HTTPResponse {
        if let items = body["value"]?.array {
            receipt?.answered(Receipt.Answer(items: items.count, nextLink: body["@odata.nextLink"]?.string))
        }
        var response = HTTPResponse(status: .ok, headers: trace.commonHeaders, body: body.bytes)
        response.headers.set("Content-Type", "application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8")
        response.headers.set("OData-Version", "4.0")
        response.headers.set("Cache-Control", "no-cache")
        response.headers.set("Vary", "Accept-Encoding")
        for field in extraHeaders { response.headers.set(field.name, field.value) }
        return response
    }

    package func failure(_ error: GraphError) -> HTTPResponse {
        error.response(in: trace)
    }
}

/// Settings of the Graph half.
package struct GraphOptions: Sendable, Equatable {
    /// Host names that make every path Graph's (a hosts-file override of `graph.microsoft.com`).
    package var graphHosts: Set<String> = ["graph.microsoft.com"]
    /// Tolerance on token `exp`/`nbf` (IdentityModel's default, which Graph uses: 5 minutes).
    package var clockSkew: TimeInterval = 300
    /// Origin named in `WWW-Authenticate`'s `authorization_uri`. Nil: `https://login.microsoftonline.com` when
    /// reached as graph.microsoft.com, else the request's own origin (FakeEntra serves both).
    package var authorityOrigin: String?
    /// Page size when neither `$top` nor `Prefer: odata.maxpagesize` says one (Graph: 10 events, 100 users).
    package var eventPageSize = 10
    package var userPageSize = 100

    package init() {}

    func isGraphHost(_ request: HTTPRequest) -> Bool {
        request.hostName.map { graphHosts.contains($0) } ?? false
    }

    /// Graph's routes under these options.
    package var routes: GraphRoutes { GraphRoutes(hosts: graphHosts) }
}
