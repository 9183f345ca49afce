package import EntraHTTP
import FoundationGaps
package import ExchangeKernel
package import IdentityPlatform

/// Microsoft Graph as FakeEntra serves it: `/v1.0/…` and `/beta/…` on FakeEntra's host, every path when the
/// Host header is `graph.microsoft.com`, and the UserInfo endpoint `/oidc/userinfo`. Returns nil for
/// everything else so the identity handlers get it.
package struct GraphHandler: ExchangeHandler {
    package let service: IdentityService
    package let dataset: GraphDataset
    package let options: GraphOptions

    /// `dataset` must have its photo files inlined (`GraphDataset.inliningPhotoFiles(relativeTo:)`): the handler
    /// never touches the file system.
    package init(service: IdentityService, dataset: GraphDataset = .embeddedDefault, options: GraphOptions = .init()) {
        self.service = service
        self.dataset = dataset
        self.options = options
    }

    package func handle(_ request: HTTPRequest, route: GraphRoute, context: ExchangeContext) -> HTTPResponse {
        let version = if case .resource(let version, _) = route { version } else { "v1.0" }
        let exchange = GraphExchange(request: request, context: context.connection, service: service, options: options, version: version,
                                     requestID: context.requestID, receipt: context.receipt)
        if request.method == "OPTIONS" { return CrossOrigin.preflight(request, trace: exchange.trace) }
        // HEAD is answered like GET: the transport keeps the headers (Content-Length included) and drops the body.
        var response = respond(to: route, in: exchange, scripted: context.directives.answer)
        CrossOrigin.decorate(&response, for: request)
        return response
    }

    /// `scripted`: a scenario's answer, given where Graph would give it. The gateway's throttling and outages
    /// and a literal answer come first; a workload's error or challenge stands in for the workload, its
    /// reading of the path included, once the token was accepted.
    private func respond(to route: GraphRoute, in exchange: GraphExchange, scripted: ScriptedAnswer?) -> HTTPResponse {
        switch scripted {
        case .serviceError(let spec)?: return exchange.failure(.scripted(spec, now: exchange.now))
        case .response(let canned)?: return canned.response(receipt: exchange.receipt)
        case .graphError(let spec)?: return onceAuthenticated(.scripted(spec), in: exchange)
        case .claimsChallenge(let spec)?:
            let claims = spec.claims ?? GraphError.notBeforeClaims(exchange.now)
            return onceAuthenticated(.claimsChallenge(claims: claims, authorityOrigin: exchange.authorityOrigin), in: exchange)
        case .oauthError?, .browserRequired?, nil: break
        }
        switch route {
        case .invalidVersion(let version):
            return exchange.failure(.invalidVersion(version))
        case .resource(_, .unknownSegment(let segment)):
            return exchange.failure(.segmentNotFound(segment))
        case .userInfo:
            guard ["GET", "POST", "HEAD"].contains(exchange.request.method) else { return exchange.failure(.methodNotAllowed) }
        case .resource(_, .memberObjects):
            guard exchange.request.method == "POST" else { return exchange.failure(.methodNotAllowed) }
        case .resource:
            guard ["GET", "HEAD"].contains(exchange.request.method) else { return exchange.failure(.methodNotAllowed) }
        }
        // One snapshot per request, so every lookup in one answer agrees.
        let directory = service.currentDirectory
        let token: BearerAccessToken
        switch authenticate(exchange, directory: directory) {
        case .success(let valid): token = valid
        case .failure(let refusal): return exchange.failure(refusal)
        }
        do {
            return try dispatch(route, resources: GraphResources(exchange: exchange, token: token, dataset: dataset, directory: directory))
        } catch {
            return exchange.failure(error)
        }
    }

    /// The caller's token, or Graph's refusal of it: invalid, or issued before a revocation (CAE).
    private func authenticate(_ exchange: GraphExchange, directory: Directory) -> Result<BearerAccessToken, GraphError> {
        let validator = BearerTokenValidator.graph(clockSkew: options.clockSkew)
        switch validator.validate(
            authorization: exchange.request.headers["Authorization"], keys: service.keys.published(at: exchange.now), directory: directory, now: exchange.now
        ) {
        case .success(let token):
            if let challenge = Self.revocationChallenge(for: token, user: directory.user(id: token.objectID), in: exchange) { return .failure(challenge) }
            return .success(token)
        case .failure(let rejection):
            return .failure(.invalidAuthenticationToken(rejection.message, authorityOrigin: exchange.authorityOrigin))
        }
    }

    /// `error` as the answer to a caller whose token Graph accepts; the token's refusal otherwise.
    private func onceAuthenticated(_ error: GraphError, in exchange: GraphExchange) -> HTTPResponse {
        if case .failure(let refusal) = authenticate(exchange, directory: service.currentDirectory) { return exchange.failure(refusal) }
        return exchange.failure(error)
    }

    /// Continuous access evaluation: a CAE-capable client's token issued before the user's tokens were revoked
    /// (`tokensValidFrom`, set by a password change or an admin) or belonging to a disabled account is
    /// challenged at once; other clients keep using their token until it expires, as with the real service.
    static func revocationChallenge(for token: BearerAccessToken, user: DirectoryUser?, in exchange: GraphExchange) -> GraphError? {
        guard token.kind == .delegated, token.isCAECapable, let user else { return nil }
        if let validFrom = token.revokedSince(for: user) {
            return GraphError.claimsChallenge(for: token, notBefore: validFrom, authorityOrigin: exchange.authorityOrigin)
        }
        // Not the account-usable rule (`DirectoryUser.refusal`): CAE's critical events are an account deleted
        // or disabled, a password changed or reset, MFA enabled, all refresh tokens revoked and high user
        // risk; a smart lockout is none of them (learn.microsoft.com, "Continuous access evaluation",
        // critical event evaluation).
        if !user.accountEnabled {
            return GraphError.claimsChallenge(for: token, notBefore: exchange.now, authorityOrigin: exchange.authorityOrigin, reason: "UserDisabled")
        }
        return nil
    }

    private func dispatch(_ route: GraphRoute, resources: GraphResources) throws(GraphError) -> HTTPResponse {
        switch route {
        case .userInfo: return try resources.userInfo()
        case .invalidVersion(let version): throw .invalidVersion(version)
        case .resource(_, let path):
            // Graph's version is the path segment; an Azure AD Graph habit of `?api-version=` is refused.
            if resources.exchange.query.parameters.pairs.contains(where: { $0.name.caseInsensitiveCompare("api-version") == .orderedSame }) {
                throw .apiVersionNotAllowed
            }
            switch path {
            case .serviceRoot: return try resources.serviceRoot()
            case .users: return try resources.userList()
            case .userCount: return try resources.userCount()
            case .user(let subject): return try resources.user(subject)
            case .photo(let subject, let size): return try resources.photo(subject, size: size)
            case .photoValue(let subject, let size): return try resources.photoValue(subject, size: size)
            case .photos(let subject): return try resources.photos(subject)
            case .calendar(let subject): return try resources.defaultCalendar(subject)
            case .calendars(let subject): return try resources.calendars(subject)
            case .calendarByID(let subject, let id): return try resources.calendar(subject, id: id)
            case .calendarItems(let subject, let calendarID, let view): return try resources.calendarItems(subject, calendarID: calendarID, view: view)
            case .events(let subject): return try resources.events(subject)
            case .event(let subject, let id): return try resources.event(subject, id: id)
            case .calendarView(let subject): return try resources.calendarView(subject)
            case .mailboxSettings(let subject): return try resources.mailboxSettings(subject)
            case .groups: return try resources.groupList()
            case .group(let id): return try resources.group(id: id)
            case .groupMembers(let id, let transitive, let listing): return try resources.groupMembers(id: id, transitive: transitive, listing)
            case .memberOf(let subject, let transitive, let listing): return try resources.memberOf(subject, transitive: transitive, listing)
            case .groupOwners(let id, let listing): return try resources.groupOwners(id: id, listing)
            case .applications(let countOnly): return try resources.applicationList(countOnly: countOnly)
            case .application(let key): return try resources.application(key)
            case .ownedObjects(let subject, let listing): return try resources.ownedObjects(subject, listing)
            case .memberObjects(let subject): return try resources.memberObjects(subject)
            case .servicePrincipals: return try resources.servicePrincipalList()
            case .unknownSegment(let segment): throw .segmentNotFound(segment)
            }
        }
    }
}

/// The resources of one request, authorised by one token.
struct GraphResources {
    let exchange: GraphExchange
    let token: BearerAccessToken
    let dataset: GraphDataset
    let directory: Directory

    /// How a resource is guarded: what the signed-in user needs for their own data, what anyone needs for
    /// somebody else's (nil: only app tokens may), and the errors the workload answers with.
    struct Access {
        var own: PermissionRequirement
        var others: PermissionRequirement?
        var denied: GraphError
        var notFound: @Sendable (String) -> GraphError

        static let profile = Access(own: .ownProfile, others: .anyProfile, denied: .insufficientPrivileges, notFound: GraphError.resourceNotFound)
        static let mailbox = Access(
            own: .calendar, others: nil, denied: .accessDenied,
            notFound: { GraphError(status: .notFound, code: "ErrorInvalidUser", message: "The requested user '\($0)' is invalid.") }
        )
    }

    /// `users('<id>')`: how `@odata.context` names a user's navigation properties.
    func usersSegment(_ user: DirectoryUser) -> String {
        "users('\(GraphUserView.graphID(of: user, tenant: directory.tenant(id: user.tenantID)))')"
    }

    /// `users('<id>@<tenant id>')`: how `@odata.id` names an entity of a user's mailbox (recorded photo
    /// and calendar answers).
    func entityKey(of user: DirectoryUser) -> String {
        "users('\(GraphUserView.graphID(of: user, tenant: directory.tenant(id: user.tenantID)))@\(user.tenantID)')"
    }

    /// The directory user a subject names, once the token may read it: `/me` needs a delegated token; users are
    /// looked up by object id or UPN in the token's tenant only.
    func resolve(_ subject: GraphSubject, access: Access) throws(GraphError) -> DirectoryUser {
        switch subject {
        case .me:
            guard token.kind == .delegated else { throw .meRequiresDelegatedFlow }
            guard token.holds(access.own) else { throw access.denied }
            guard let user = directory.user(id: token.objectID), user.tenantID == token.tenantID else {
                throw access.notFound(token.objectID)
            }
            return user
        case .user(let key):
            let found = directory.users(inTenant: token.tenantID).first { user in
                user.id == key.lowercased() || user.userPrincipalName.caseInsensitiveCompare(key) == .orderedSame
                    || GraphUserView.graphID(of: user, tenant: directory.tenant(id: user.tenantID)) == key.lowercased()
            }
            let isSelf = token.kind == .delegated && found?.id == token.objectID
            if isSelf {
                guard token.holds(access.own) else { throw access.denied }
            } else if token.kind == .application {
                guard token.holds(access.others ?? access.own) else { throw access.denied }
            } else {
                guard let others = access.others, token.holds(others) else { throw access.denied }
            }
            guard let found else { throw access.notFound(key) }
            return found
        }
    }
}
