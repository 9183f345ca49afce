import EntraCrypto
package import FoundationGaps
import Synchronization

/// One message the service sent by email or text: a one-time code to verify an address, sign in, prove a
/// second factor or register one.
package struct OutboxMessage: Sendable, Equatable {
    package enum Purpose: String, Sendable { case signIn, signUp, resetPassword, mfa, registration }

    package var to: String
    package var subject: String
    package var code: String
    package var purpose: Purpose
    package var sentAt: Date
    package var expiresAt: Date

    package init(to: String, subject: String, code: String, purpose: Purpose, sentAt: Date, expiresAt: Date) {
        self.to = to
        self.subject = subject
        self.code = code
        self.purpose = purpose
        self.sentAt = sentAt
        self.expiresAt = expiresAt
    }
}

/// Every message the service "sends" by email or text, kept per address (an email address or a phone
/// number) so a test reads the code a person would have read. The newest message of an address comes last; each address keeps its last 50, and the
/// addresses written to last are kept, 10,000 of them and 20,000 messages in all (a script signing up
/// address after address, or asking one address for code after code, cannot grow it).
package final class Outbox: Sendable {
    static let perAddress = 50
    static let addresses = 10_000
    static let messagesInAll = 20_000

    private struct Mailboxes: Sendable {
        var byAddress: [String: [OutboxMessage]] = [:]
        /// Addresses, least recently written first.
        var order: [String] = []
        var count = 0
    }

    private let messages = Mutex(Mailboxes())

    package init() {}

    package func send(_ message: OutboxMessage) {
        let address = message.to.lowercased()
        messages.withLock { boxes in
            var list = boxes.byAddress[address] ?? []
            boxes.count -= list.count
            list.append(message)
            if list.count > Self.perAddress { list.removeFirst(list.count - Self.perAddress) }
            boxes.byAddress[address] = list
            boxes.count += list.count
            boxes.order.removeAll { $0 == address }
            boxes.order.append(address)
            while boxes.order.count > Self.addresses || (boxes.count > Self.messagesInAll && boxes.order.count > 1) {
                boxes.count -= boxes.byAddress.removeValue(forKey: boxes.order.removeFirst())?.count ?? 0
            }
        }
    }

    /// Mails a new one-time code to `address`: what a person would find in their inbox. External ID's
    /// codes have eight digits; B2C's six (its one-time password step's default `CodeLength`).
    package func mailCode(to address: String, purpose: OutboxMessage.Purpose, now: Date, digits: Int = NativeAuthFlows.codeLength) -> (code: String, expiresAt: Date) {
        let code = NativeAuthFlows.newCode(digits: digits)
        let expiresAt = now.addingTimeInterval(NativeAuthFlows.codeLifetime)
        send(OutboxMessage(to: address, subject: "Account verification code: \(code)", code: code, purpose: purpose, sentAt: now, expiresAt: expiresAt))
        return (code, expiresAt)
    }

    /// Whether `presented` is `code` and arrived before `expiresAt` (compared in constant time).
    package static func accepts(_ presented: String, code: String?, expiresAt: Date?, now: Date) -> Bool {
        guard let code, let expiresAt, expiresAt > now else { return false }
        return ConstantTime.equals(code, presented)
    }

    /// Messages kept, to every address.
    package var count: Int { messages.withLock { $0.count } }

    /// The messages sent to `address`, oldest first.
    package func messages(to address: String) -> [OutboxMessage] {
        messages.withLock { $0.byAddress[address.lowercased()] ?? [] }
    }

    /// The last `limit` messages to any address, newest first. Each address's newest `limit` are copied
    /// under the lock and sorted outside it, so a console page never holds up a send.
    package func recent(_ limit: Int) -> [OutboxMessage] {
        let candidates = messages.withLock { boxes in boxes.byAddress.values.flatMap { $0.suffix(limit) } }
        return Array(candidates.sorted { $0.sentAt > $1.sentAt }.prefix(limit))
    }
}
