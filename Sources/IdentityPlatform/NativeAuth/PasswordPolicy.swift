import FoundationGaps

/// Entra's rules for a new password, refused with the native API's suberrors: 8 to 256 characters, three
/// of lower case, upper case, digits and symbols (learn.microsoft.com, "Password policies"), and no
/// password made of banned terms (`BannedPasswordCheck`).
package enum PasswordPolicy {
    /// `names`: the customer's given name and surname where known, which a password may not lean on.
    static func check(_ password: String, tenant: Tenant, names: [String?] = []) throws(NativeAuthError) {
        // Counted as the service counts (.NET's String.Length, UTF-16 code units): as grapheme clusters, a
        // few hundred "characters" could carry tens of thousands of combining marks.
        let length = password.utf16.count
        if length < 8 { throw NativeAuthError(.passwordRefused("password_too_short", "Password too short.")) }
        if length > 256 { throw NativeAuthError(.passwordRefused("password_too_long", "Password too long.")) }
        if characterKinds(in: password) < 3 { throw NativeAuthError(.passwordRefused("password_too_weak", "New password is too weak")) }
        let check = BannedPasswordCheck(bannedTerms: tenant.bannedPasswords ?? [], names: names.compactMap { $0 } + tenant.nameTerms)
        if !check.accepts(password) {
            throw NativeAuthError(.passwordRefused("password_banned", "Choose a password that's harder for people to guess."))
        }
    }

    /// How many of lower case, upper case, digits and symbols `password` has (Entra's and B2C's complexity rule).
    package static func characterKinds(in password: String) -> Int {
        [password.contains(where: \.isLowercase), password.contains(where: \.isUppercase), password.contains(where: \.isNumber),
         password.contains(where: { !$0.isLetter && !$0.isNumber })].filter { $0 }.count
    }

    /// A forgotten password replaced, from the native API or the pages: the rules above, an account that
    /// may sign in, and not the password the customer has now; checked and changed in one step.
    static func reset(userID: String, to password: String, in service: IdentityService, tenant: Tenant, now: Date) throws(NativeAuthError) {
        let user = service.currentDirectory.user(id: userID)
        try check(password, tenant: tenant, names: [user?.givenName, user?.surname])
        let refusal = service.directory.withLock { directory -> NativeAuthError? in
            guard let user = directory.user(id: userID) else { return NativeAuthError(.nativeAuthUserNotFound(tenant: tenant.primaryDomain)) }
            if let problem = NativeAuthError.accountProblem(user) { return problem }
            if user.password == password { return NativeAuthError(.passwordRefused("password_recently_used", "The new password was used recently.")) }
            directory.changePassword(userID: userID, to: password, now: now)
            return nil
        }
        if let refusal { throw refusal }
    }
}

/// Microsoft Entra Password Protection's evaluation of a new password, as learn.microsoft.com describes
/// it ("Eliminate bad passwords", "How are passwords evaluated"): the password is normalized (lower case;
/// 0→o, 1→l, $→s, @→a); a password containing the user's first or last name or the tenant's name (of
/// four characters or more) is refused, as the reference's "p0LL23fb" for a user named Poll; otherwise each
/// banned term found in it within an edit distance of one scores one point, every other character one
/// point, and fewer than five points is refused. Microsoft's global list is not published: the terms are
/// the tenant's custom banned list.
struct BannedPasswordCheck {
    let bannedTerms: [[Character]]
    let names: [[Character]]

    init(bannedTerms: [String], names: [String]) {
        self.bannedTerms = bannedTerms.map(Self.normalized).filter { !$0.isEmpty }
        self.names = names.map(Self.normalized).filter { $0.count >= 4 }
    }

    static let minimumScore = 5

    static func normalized(_ text: String) -> [Character] {
        text.lowercased().map { character in
            switch character {
            case "0": "o"
            case "1": "l"
            case "$": "s"
            case "@": "a"
            default: character
            }
        }
    }

    func accepts(_ password: String) -> Bool {
        let text = Self.normalized(password)
        if names.contains(where: { name in text.indices.contains { start in text[start...].starts(with: name) } }) { return false }
        return score(text) >= Self.minimumScore
    }

    /// Left to right, the longest banned term starting at each place takes its characters.
    func score(_ text: [Character]) -> Int {
        var points = 0
        var index = 0
        while index < text.count {
            if let length = longestMatch(in: text, at: index) {
                index += length
            } else {
                index += 1
            }
            points += 1
        }
        return points
    }

    /// The length of the longest stretch at `start` that is a banned term within one edit.
    private func longestMatch(in text: [Character], at start: Int) -> Int? {
        var best: Int?
        let rest = text.count - start
        for term in bannedTerms {
            for length in [term.count + 1, term.count, term.count - 1] where length > 0 && length <= rest && length > (best ?? 0) {
                if Self.withinOneEdit(text[start..<(start + length)], term) { best = length }
            }
        }
        return best
    }

    /// Whether `a` becomes `b` with at most one substitution, insertion or deletion (in linear time).
    static func withinOneEdit(_ a: ArraySlice<Character>, _ b: [Character]) -> Bool {
        let a = Array(a)
        if abs(a.count - b.count) > 1 { return false }
        var i = 0, j = 0, edits = 0
        while i < a.count && j < b.count {
            if a[i] == b[j] {
                i += 1; j += 1
                continue
            }
            edits += 1
            if edits > 1 { return false }
            if a.count > b.count { i += 1 } else if a.count < b.count { j += 1 } else { i += 1; j += 1 }
        }
        return edits + (a.count - i) + (b.count - j) <= 1
    }
}

extension Tenant {
    /// The tenant's name as Password Protection matches it: the words of its display name and its initial
    /// domain's first label.
    var nameTerms: [String] {
        displayName.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
            + [primaryDomain.split(separator: ".").first.map(String.init) ?? ""]
    }
}
