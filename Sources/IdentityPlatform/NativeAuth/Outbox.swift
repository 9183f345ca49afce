package import Foundation
import Synchronization

/// One email the service sent: a one-time code to verify an address or sign in.
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

/// Every email the service "sends", kept per address so a test reads the code a person would have read
/// in their inbox. The newest message of an address comes last; each address keeps its last 50, and the
/// 10,000 addresses written to last are kept (a script signing up address after address cannot grow it).
package final class Outbox: Sendable {
    static let perAddress = 50
    static let addresses = 10_000

    private struct Mailboxes: Sendable {
        var byAddress: [String: [OutboxMessage]] = [:]
        /// Addresses, least recently written first.
        var order: [String] = []
    }

    private let messages = Mutex(Mailboxes())

    package init() {}

    package func send(_ message: OutboxMessage) {
        let address = message.to.lowercased()
        messages.withLock { boxes in
            var list = boxes.byAddress[address] ?? []
            list.append(message)
            if list.count > Self.perAddress { list.removeFirst(list.count - Self.perAddress) }
            boxes.byAddress[address] = list
            boxes.order.removeAll { $0 == address }
            boxes.order.append(address)
            if boxes.order.count > Self.addresses { boxes.byAddress[boxes.order.removeFirst()] = nil }
        }
    }

    /// The messages sent to `address`, oldest first.
    package func messages(to address: String) -> [OutboxMessage] {
        messages.withLock { $0.byAddress[address.lowercased()] ?? [] }
    }

    /// The last `limit` messages to any address, newest first.
    package func recent(_ limit: Int) -> [OutboxMessage] {
        messages.withLock { boxes in Array(boxes.byAddress.values.joined().sorted { $0.sentAt > $1.sentAt }.prefix(limit)) }
    }
}
