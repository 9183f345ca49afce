/// What RFC 9110 allows in a header field, for text that becomes a header outside the decoder
/// (a scenario's canned response): names are tokens, values carry no control characters.
package enum HTTPFieldSyntax {
    /// RFC 9110 §5.1: `field-name = token`.
    package static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTPHeadParser.isTokenByte)
    }

    /// RFC 9110 §5.5: visible characters, spaces, tabs and obs-text; never CR, LF, NUL or another control.
    package static func isFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// Framing the transport writes itself (`HTTPResponseEncoder`): a handler's copy would be dropped.
    package static func isTransportOwned(_ name: String) -> Bool {
        ["content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer"].contains(name.lowercased())
    }

    /// RFC 9110 §6.4.1, §15.3.5, §15.4.5: statuses whose responses never carry content.
    package static func forbidsContent(status: Int) -> Bool {
        (100..<200).contains(status) || status == 204 || status == 205 || status == 304
    }
}
