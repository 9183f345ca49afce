import EntraCrypto
package import FoundationGaps
import Synchronization

/// One native-authentication flow (sign-in, sign-up, password reset) between its continuation tokens.
///
/// Continuation tokens are opaque, bound to their flow, its client and the step they were issued for, and
/// valid for ten minutes (the reference's `expires_in` for password reset, the only one it states). A token
/// stays usable after a failed attempt, as MSAL resends it after a wrong password or code and to ask for a
/// new code; every step that succeeds hands out a new one and retires the flow's earlier ones (MSAL always
/// goes on with the newest), and a finished flow takes its last one back.
package struct NativeAuthFlow: Sendable {
    package enum Kind: String, Sendable {
        case signIn, signUp, resetPassword

        /// What a code this flow mails is for, as the outbox shows it.
        package var mailPurpose: OutboxMessage.Purpose {
            switch self {
            case .signIn: .signIn
            case .signUp: .signUp
            case .resetPassword: .resetPassword
            }
        }
    }

    /// What the holder of a token may do next.
    package enum Step: Sendable, Hashable, CaseIterable {
        /// Started: a challenge picks the method.
        case started
        /// The user's password is expected at the token endpoint.
        case passwordRequired
        /// A one-time code was mailed; the next request submits it (or asks for another).
        case codeSent
        /// Sign-up: the email is verified, the password (if the app signs up with one) is expected.
        case credentialRequired
        /// Sign-up: the attributes the user flow collects are expected.
        case attributesRequired
        /// Password reset: the address is verified, the new password is expected.
        case newPasswordRequired
        /// Password reset: the new password was submitted; the client polls for the outcome.
        case resetSubmitted
        /// Sign-in: the first factor passed and the user must prove a second; the client lists the methods.
        case mfaRequired
        /// Sign-in: the second factor's methods were listed; the client picks one (`challenge` with its `id`).
        case mfaMethodsListed
        /// Sign-in: the second factor's code was mailed; the token endpoint takes it (`mfa_oob`).
        case mfaCodeSent
        /// V2: a code by text message was asked for; the client confirms the phone check (`riskverify`)
        /// before it is sent.
        case phoneCheckRequired
        /// Sign-in: a second factor is required and the user has none; the client registers one.
        case registrationRequired
        /// Registration: the methods that can be registered were listed.
        case registrationMethodListed
        /// Registration: the contact is the address the user already proved, no code needed.
        case registrationPreverified
        /// V2 registration: a code went to the contact being registered; `activate` takes it.
        case registrationCodeSent
        /// Done: the token buys tokens once (`grant_type=continuation_token`).
        case completed
        /// V2: the journey goes on in a browser (`webFallbackRequired`); its token leads nowhere.
        case browserRequired
    }

    package var id: String
    /// What the flow is for. A V2 journey chooses it after its start, and a finished sign-up or reset that
    /// needs a second factor goes on as the user's sign-in: only the flows' store changes it, by `after(_:)`.
    package fileprivate(set) var kind: Kind
    /// Where the flow is: what the holder of its live token may do next. Only the flows' store moves it,
    /// by `after(_:)`, as it hands out that step's token.
    package fileprivate(set) var step: Step = .started
    package var clientID: String
    package var tenantID: String
    /// The email the user signs in or up with.
    package var username: String
    /// The signed-in user; nil during a sign-up until the account exists.
    package var userID: String?
    /// Sign-up: what the user gave so far.
    package var password: String?
    package var attributes: [String: String] = [:]
    /// The methods the app can show (`challenge_type`), `redirect` always among them.
    package var challengeTypes: Set<String>
    /// What the app can do natively besides (`capabilities`: `mfa_required`, `registration_required`).
    package var capabilities: Set<String> = []
    /// Sign-in: the first factor that passed (`pwd` or `otp`), kept through a second factor.
    package var firstFactor: String?
    /// The code last mailed and until when it is accepted; a new code replaces it.
    package var code: String?
    package var codeExpiresAt: Date?
    package var expiresAt: Date
    /// Started at V2's authorization challenge: only V2's steps take its tokens, and V1's never.
    package var isV2 = false
    /// V2: the `scope` the authorization challenge named, granted with the code.
    package var requestedScope: String?
    /// V2 sign-in: the second factor passed.
    package var secondFactorPassed = false
    /// V2: the phone check of a text-message method passed; a resend sends the code at once.
    package var phoneChecked = false
    /// The token this value was looked up by (`flow(presented:)`): only while it is still the flow's live
    /// one may the flow move on, so two requests racing with one token cannot both.
    package var presentedToken: String?
    /// V2 registration: the contact the code went to, and its channel (`email`, `sms`).
    package var registering: Contact?

    package struct Contact: Sendable, Equatable {
        package var channel: String
        package var address: String
    }

    package init(id: String, kind: Kind, clientID: String, tenantID: String, username: String, userID: String?,
                 challengeTypes: Set<String>, expiresAt: Date) {
        self.id = id
        self.kind = kind
        self.clientID = clientID
        self.tenantID = tenantID
        self.username = username
        self.userID = userID
        self.challengeTypes = challengeTypes
        self.expiresAt = expiresAt
    }
}

/// The flows in progress and their continuation tokens, in memory: a flow lasts minutes, and after a
/// restart under `--state` a token of a flow the server no longer has is answered as unknown (AADSTS55200).
package final class NativeAuthFlows: Sendable {
    package static let tokenLifetime: TimeInterval = 600
    /// The real service mails eight digits (`code_length` in the reference's examples).
    package static let codeLength = 8
    package static let codeLifetime: TimeInterval = 600
    /// At most this many flows are kept; the oldest go first.
    static let capacity = 10_000

    private struct Issued: Sendable {
        var flowID: String
        var expiresAt: Date
    }

    private struct Store: Sendable {
        var flows: [String: NativeAuthFlow] = [:]
        var tokens: [String: Issued] = [:]
        /// Each flow's one live token (a step retires the token before it).
        var liveToken: [String: String] = [:]

        mutating func retireToken(of flowID: String) {
            if let token = liveToken.removeValue(forKey: flowID) { tokens[token] = nil }
        }
        /// Flow ids, oldest first from `orderStart` on. A finished flow's id stays until it is passed over or
        /// the list is rebuilt, so that neither ending a flow nor dropping the oldest moves the others.
        var order: [String] = []
        var orderStart = 0
    }

    private let store = Mutex(Store())

    package init() {}

    /// Who presents a continuation token: a request to the API version its flow started on, in its
    /// tenant, and (V1, whose requests name it) from its client.
    package struct Presenter: Sendable {
        var isV2: Bool
        var tenantID: String
        var clientID: String?

        package static func v1(tenantID: String, clientID: String) -> Presenter { Presenter(isV2: false, tenantID: tenantID, clientID: clientID) }
        package static func v2(tenantID: String) -> Presenter { Presenter(isV2: true, tenantID: tenantID, clientID: nil) }

        func owns(_ flow: NativeAuthFlow) -> Bool {
            flow.isV2 == isV2 && flow.tenantID == tenantID
                && (clientID.map { flow.clientID.caseInsensitiveCompare($0) == .orderedSame } ?? true)
        }
    }

    /// Why a continuation token was refused; each dialect words it in its own catalogue.
    package enum Refusal: Error, Sendable {
        case expired
        /// Unknown, retired, or another flow's holder's.
        case invalid
    }

    /// The flow `token` stands for, at its step, provided `presenter` may present it.
    package func flow(presented token: String, by presenter: Presenter, now: Date) throws(Refusal) -> NativeAuthFlow {
        let found = store.withLock { store -> (NativeAuthFlow, Issued)? in
            guard let issued = store.tokens[token], let flow = store.flows[issued.flowID] else { return nil }
            return (flow, issued)
        }
        guard let (flow, issued) = found else { throw .invalid }
        guard issued.expiresAt > now else { throw .expired }
        guard presenter.owns(flow) else { throw .invalid }
        var presented = flow
        presented.presentedToken = token
        return presented
    }

    /// Keeps a new flow (at `started`, where every flow begins) and hands out its first token.
    package func start(_ flow: NativeAuthFlow, now: Date) -> String {
        store.withLock { store in
            // The oldest live flows make room: at most `capacity` are kept.
            while store.flows.count >= Self.capacity, store.orderStart < store.order.count {
                let oldest = store.order[store.orderStart]
                store.orderStart += 1
                if store.flows[oldest] != nil { Self.forget(oldest, in: &store) }
            }
            store.order.append(flow.id)
            // Rebuilt once it holds twice as many ids as flows can live: each start pays for it in turn.
            if store.order.count - store.orderStart > 2 * Self.capacity || store.orderStart > Self.capacity {
                let live = store.flows
                store.order = store.order[store.orderStart...].filter { live[$0] != nil || $0 == flow.id }
                store.orderStart = 0
            }
            return Self.keep(flow, now: now, in: &store)
        }
    }

    /// Saves a flow that moved on and hands out the token for where `event` leaves it (`after(_:)`); its
    /// earlier tokens stop working. nil when the flow ended meanwhile (a concurrent request finished it),
    /// when its live token is no longer the one presented, or when `event` cannot happen where it is.
    package func advance(_ flow: NativeAuthFlow, on event: NativeAuthFlow.Event, now: Date) -> String? {
        store.withLock { store -> String? in
            guard let current = store.flows[flow.id], let (kind, step) = current.after(event),
                  flow.presentedToken.map({ store.liveToken[flow.id] == $0 }) ?? true else { return nil }
            store.retireToken(of: flow.id)
            var moved = flow
            (moved.kind, moved.step) = (kind, step)
            return Self.keep(moved, now: now, in: &store)
        }
    }

    private static func keep(_ flow: NativeAuthFlow, now: Date, in store: inout Store) -> String {
        let token = newToken()
        var kept = flow
        kept.presentedToken = nil
        kept.expiresAt = now.addingTimeInterval(tokenLifetime)
        store.flows[flow.id] = kept
        store.tokens[token] = Issued(flowID: flow.id, expiresAt: kept.expiresAt)
        store.liveToken[flow.id] = token
        return token
    }

    /// How many flow ids the order keeps, finished ones not yet passed over included.
    var orderedIDs: Int { store.withLock { $0.order.count - $0.orderStart } }

    /// Ends a flow: none of its tokens is accepted again. False when another request ended it first, so
    /// two requests racing with one token cannot both finish it.
    package func finish(_ flowID: String) -> Bool {
        store.withLock { store in
            guard store.flows[flowID] != nil else { return false }
            Self.forget(flowID, in: &store)
            return true
        }
    }

    private static func forget(_ flowID: String, in store: inout Store) {
        store.flows[flowID] = nil
        store.retireToken(of: flowID)
    }

    /// An opaque token in the shape the service's have (base64url, no padding).
    private static func newToken() -> String { TokenIdentifiers.opaqueInternal() }

    package static func newFlowID() -> String { SecureRandom.guid() }

    /// `count` random digits (eight unless said), each as likely as the others (bytes from 250 up are drawn again).
    package static func newCode(digits count: Int = codeLength) -> String {
        var digits = ""
        while digits.count < count {
            for byte in SecureRandom.bytes(count: count) where byte < 250 && digits.count < count {
                digits += String(byte % 10)
            }
        }
        return digits
    }
}
