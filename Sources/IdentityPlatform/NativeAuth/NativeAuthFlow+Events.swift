/// The native-authentication flow as a state machine: endpoints report what happened (`Event`), and
/// `after(_:)` alone decides where that leaves the flow, for V1's endpoints and V2's links alike. An event
/// that cannot happen where the flow is refuses the request as an invalid continuation token, so a token
/// for one step cannot skip the steps that prove who is there.
extension NativeAuthFlow {
    package enum Event: Sendable, Hashable {
        /// V2: the entry token chose its journey (the `sign_in`, `sign_up` or `reset_password` link).
        case journeyChosen(Kind)
        /// The user's password is asked for: a sign-in's first factor, or a sign-up's credential.
        case passwordAsked
        /// A code went out: to prove the address or as a sign-in's first factor, as the second factor, or
        /// to the contact being registered; the flow's step says which.
        case codeSent
        /// V2: a text's phone check comes before its code.
        case phoneCheckAsked
        /// Sign-up: the user flow's attributes (and the password, in V2's form) are asked for.
        case attributesAsked
        /// The first factor passed, or a sign-up or reset finished, and a second factor is needed; the user
        /// has a method registered or not.
        case secondFactorDemanded(registered: Bool)
        /// Methods were listed: the second factor's, or those the user may register.
        case methodsListed
        /// Registration: the contact is the address the user already proved.
        case contactPreverified
        /// Password reset: the code proved the address; the new password is asked for.
        case addressProven
        /// Password reset: the new password was accepted; the client polls.
        case newPasswordSubmitted
        /// The journey is done: its token buys tokens (V1) or a code (V2), once.
        case finished
        /// The journey goes on in a browser.
        case handedToBrowser
    }

    /// Where `event` leaves this flow, its kind included; nil when `event` cannot happen at its step.
    package func after(_ event: Event) -> (kind: Kind, step: Step)? {
        switch event {
        case .journeyChosen(let chosen):
            guard isV2, step == .started else { return nil }
            return (chosen, chosen == .signUp ? .attributesRequired : .started)
        case .secondFactorDemanded(let registered):
            // After a sign-up or a password reset the flow goes on as the user's sign-in (V1: V2 ends those
            // journeys with a code). V2 lists the methods in the same answer.
            let firstFactorPassed = kind == .signIn && (step == .passwordRequired || step == .codeSent)
            guard firstFactorPassed || (step == .completed && !isV2) else { return nil }
            return (.signIn, registered ? (isV2 ? .mfaMethodsListed : .mfaRequired) : .registrationRequired)
        case .handedToBrowser:
            guard step != .completed, step != .browserRequired else { return nil }
            return (kind, .browserRequired)
        default:
            return stepAfter(event).map { (kind, $0) }
        }
    }

    private func stepAfter(_ event: Event) -> Step? {
        switch event {
        case .passwordAsked:
            switch (kind, step) {
            case (.signIn, .started), (.signIn, .passwordRequired), (.signIn, .codeSent): .passwordRequired
            case (.signUp, .codeSent), (.signUp, .credentialRequired), (.signUp, .attributesRequired): .credentialRequired
            default: nil
            }
        case .codeSent:
            switch step {
            case .started, .passwordRequired, .codeSent: .codeSent
            // V2 proves a new address once its first attributes are in.
            case .attributesRequired: isV2 ? .codeSent : nil
            case .mfaRequired, .mfaMethodsListed, .mfaCodeSent: .mfaCodeSent
            // The phone checked, the text goes out: a sign-in's second factor, a reset's first.
            case .phoneCheckRequired: kind == .signIn ? .mfaCodeSent : .codeSent
            case .registrationRequired, .registrationCodeSent: .registrationCodeSent
            default: nil
            }
        case .phoneCheckAsked:
            [.started, .codeSent, .mfaMethodsListed, .mfaCodeSent].contains(step) ? .phoneCheckRequired : nil
        case .attributesAsked:
            switch (kind, isV2, step) {
            // V1 asks for what the user flow still needs after the code or the password.
            case (.signUp, false, .codeSent), (.signUp, false, .credentialRequired), (.signUp, false, .attributesRequired): .attributesRequired
            // V2 shows its form again once the address is proved; that form's answer makes the account.
            case (.signUp, true, .codeSent), (.signUp, true, .credentialRequired): .credentialRequired
            default: nil
            }
        case .methodsListed:
            switch step {
            case .mfaRequired, .mfaMethodsListed, .mfaCodeSent: .mfaMethodsListed
            case .registrationRequired, .registrationMethodListed: .registrationMethodListed
            default: nil
            }
        case .contactPreverified:
            step == .registrationMethodListed || step == .registrationPreverified ? .registrationPreverified : nil
        case .addressProven:
            kind == .resetPassword && step == .codeSent ? .newPasswordRequired : nil
        case .newPasswordSubmitted:
            step == .newPasswordRequired ? .resetSubmitted : nil
        case .finished:
            switch (kind, step) {
            case (.signIn, .passwordRequired), (.signIn, .codeSent), (.signIn, .mfaCodeSent),
                 (.signIn, .registrationPreverified), (.signIn, .registrationCodeSent),
                 (.signUp, .codeSent), (.signUp, .credentialRequired), (.signUp, .attributesRequired),
                 (.resetPassword, .resetSubmitted): .completed
            default: nil
            }
        case .journeyChosen, .secondFactorDemanded, .handedToBrowser:
            nil
        }
    }
}
