/// How a request body is delimited (RFC 9112 §6.3), decided from the head alone.
enum RequestFraming: Equatable {
    case none
    case length(Int)
    case chunked

    init(_ headers: HTTPHeaders, version: HTTPVersion, maxBody: Int) throws(HTTPDecodingError) {
        let transferEncodings = headers.values(for: "Transfer-Encoding")
        let contentLengths = headers.values(for: "Content-Length")
        if !transferEncodings.isEmpty {
            guard contentLengths.isEmpty else {
                throw HTTPDecodingError(.conflictingFraming, "Content-Length and Transfer-Encoding together are not accepted")
            }
            guard version.minor >= 1 else {
                throw HTTPDecodingError(.malformedHeader, "Transfer-Encoding is not defined for HTTP/1.0")
            }
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }.map { $0.trimmingASCIISpaces() }
            guard let last = codings.last, String(last).equalsIgnoringASCIICase("chunked") else {
                throw HTTPDecodingError(.malformedHeader, "the final transfer coding must be chunked")
            }
            guard codings.count == 1 else {
                throw HTTPDecodingError(.unsupportedTransferEncoding, "only the chunked transfer coding is supported")
            }
            self = .chunked
            return
        }
        guard !contentLengths.isEmpty else {
            self = .none
            return
        }
        // Repeated identical values (`5, 5` or two fields) are one length; anything else is an error. The
        // usual single field of digits is read as it is, not split into pieces of characters first.
        var length: Int?
        if contentLengths.count == 1, let only = contentLengths.first, !only.isEmpty, only.utf8.count <= 18,
           only.utf8.allSatisfy(HTTPHeadParser.isDigit) {
            length = Int(only)
        } else {
            for value in contentLengths.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
                let digits = value.trimmingASCIISpaces()
                guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy(HTTPHeadParser.isDigit), let parsed = Int(digits) else {
                    throw HTTPDecodingError(.invalidContentLength, "invalid Content-Length")
                }
                guard length == nil || length == parsed else {
                    throw HTTPDecodingError(.invalidContentLength, "conflicting Content-Length values")
                }
                length = parsed
            }
        }
        let declared = length!
        if declared > maxBody {
            throw HTTPDecodingError(.bodyTooLarge, "request body of \(declared) bytes exceeds \(maxBody) bytes")
        }
        self = declared == 0 ? .none : .length(declared)
    }
}

extension HTTPRequest {
    /// Whether the connection may carry another request after this one (RFC 9112 §9.3).
    package var wantsKeepAlive: Bool {
        var sawKeepAlive = false
        for value in headers.values(for: "Connection") {
            for option in value.split(separator: ",") {
                let token = String(option.trimmingASCIISpaces())
                if token.equalsIgnoringASCIICase("close") { return false }
                if token.equalsIgnoringASCIICase("keep-alive") { sawKeepAlive = true }
            }
        }
        return version.minor >= 1 || sawKeepAlive
    }

    /// HEAD responses carry the headers of a GET, Content-Length included, but no body.
    package var isHead: Bool { method == "HEAD" }
}
