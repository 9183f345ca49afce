/// What the decoder found in the bytes fed so far.
package enum HTTPDecoderEvent: Sendable, Equatable {
    /// The head asked `Expect: 100-continue` and its body has not started: write `100 Continue` now.
    case continueExpected
    /// A complete request, body included. Pipelined requests come out in the order they were sent.
    case request(HTTPRequest)
}

/// An incremental HTTP/1.1 request decoder: feed bytes as they arrive, pull events until nil.
/// After it throws, it stays failed (the connection must answer `error.response` and close).
package struct HTTPRequestDecoder: Sendable {
    package struct Limits: Sendable, Equatable {
        /// Request line plus header fields (and, separately, the trailer section). Beyond → 431.
        package var maxHeadBytes: Int
        /// Declared or chunked body size. Beyond → 413.
        package var maxBodyBytes: Int

        package init(maxHeadBytes: Int = 64 * 1024, maxBodyBytes: Int = 1024 * 1024) {
            self.maxHeadBytes = maxHeadBytes
            self.maxBodyBytes = maxBodyBytes
        }
    }

    private enum State: Sendable {
        /// Waiting for a head; `lineStart` is where scanning for the blank line resumes.
        case head(lineStart: Int, scanned: Int)
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(lineStart: Int, scanned: Int)
        case failed(HTTPDecodingError)
    }

    package let limits: Limits
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var state: State = .head(lineStart: 0, scanned: 0)
    private var pending: HTTPRequest?
    /// The pending request's body, given to it once complete: `HTTPRequest` decodes a form body each
    /// time its body changes, which appending read by read would make quadratic.
    private var pendingBody: [UInt8] = []
    private var bodySize = 0

    package init(limits: Limits = Limits()) { self.limits = limits }

    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    package mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received and not yet consumed by a complete request.
    package var bufferedByteCount: Int { buffer.count - readIndex }

    /// True between the first byte of a request and its last: a timeout now deserves a 408.
    package var isInsideRequest: Bool {
        switch state {
        case .head: return bufferedByteCount > 0 && !onlyBlankLinesBuffered
        case .failed: return false
        default: return true
        }
    }

    /// True once a head was decoded and its body is still arriving.
    package var isReadingBody: Bool {
        switch state {
        case .fixedBody, .chunkSize, .chunkData, .chunkDataEnd, .trailers: true
        case .head, .failed: false
        }
    }

    /// Pulls the next event, or nil when more bytes are needed.
    package mutating func next() throws(HTTPDecodingError) -> HTTPDecoderEvent? {
        do {
            return try step()
        } catch {
            var error = error
            if error.requestLine == nil { error.requestLine = currentRequestLine }
            state = .failed(error)
            throw error
        }
    }

    /// The request being received, once its request line is complete: for logs about a request that
    /// timed out or was refused before it was whole. Nil between requests.
    package var currentRequestLine: HTTPRequestLine? {
        if let pending { return HTTPRequestLine(method: pending.method, target: pending.target) }
        guard case .head = state else { return nil }
        return buffer.withUnsafeBufferPointer { all in
            var index = readIndex
            while index < all.count, all[index] == HTTPHeadParser.cr || all[index] == HTTPHeadParser.lf { index += 1 }
            var lines = HTTPHeadParser.LineIterator(bytes: UnsafeBufferPointer(rebasing: all[index...]))
            // Only a line that ended: a partial one might still be cut in the middle of the target.
            guard let line = lines.next(), lines.position <= lines.bytes.count,
                  let request = try? HTTPHeadParser.parseRequestLine(line) else { return nil }
            return HTTPRequestLine(method: request.method, target: request.target)
        }
    }

    private mutating func step() throws(HTTPDecodingError) -> HTTPDecoderEvent? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .head(let lineStart, let scanned):
                skipLeadingBlankLines()
                guard let headEnd = try sectionEnd(lineStart, scanned, name: "request line and headers", resume: State.head) else {
                    return nil
                }
                let request = try buffer.withUnsafeBufferPointer { (all) throws(HTTPDecodingError) in
                    try HTTPHeadParser.parseHead(UnsafeBufferPointer(rebasing: all[readIndex..<headEnd]))
                }
                readIndex = headEnd
                if let event = try beginBody(of: request) { return event }
            case .fixedBody(let remaining):
                let take = min(remaining, bufferedByteCount)
                pendingBody.append(contentsOf: buffer[readIndex..<(readIndex + take)])
                readIndex += take
                guard take == remaining else {
                    state = .fixedBody(remaining: remaining - take)
                    return nil
                }
                return finishRequest()
            case .chunkSize:
                guard try readChunkSize() else { return nil }
            case .chunkData(let remaining):
                let take = min(remaining, bufferedByteCount)
                pendingBody.append(contentsOf: buffer[readIndex..<(readIndex + take)])
                readIndex += take
                guard take == remaining else {
                    state = .chunkData(remaining: remaining - take)
                    return nil
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard bufferedByteCount >= 1 else { return nil }
                if buffer[readIndex] == HTTPHeadParser.lf {
                    readIndex += 1
                } else {
                    guard bufferedByteCount >= 2 else { return nil }
                    guard buffer[readIndex] == HTTPHeadParser.cr, buffer[readIndex + 1] == HTTPHeadParser.lf else {
                        throw HTTPDecodingError(.malformedChunk, "chunk data must end with CRLF")
                    }
                    readIndex += 2
                }
                state = .chunkSize
            case .trailers(let lineStart, let scanned):
                guard let end = try sectionEnd(lineStart, scanned, name: "trailer section", resume: State.trailers) else {
                    return nil
                }
                let trailers = try buffer.withUnsafeBufferPointer { (all) throws(HTTPDecodingError) in
                    var lines = HTTPHeadParser.LineIterator(bytes: UnsafeBufferPointer(rebasing: all[readIndex..<end]))
                    return try HTTPHeadParser.parseFields(&lines)
                }
                readIndex = end
                pending!.trailers = trailers
                return finishRequest()
            }
        }
    }

    /// Decides the body framing (RFC 9112 §6.3) and validates what must be known before reading it.
    private mutating func beginBody(of request: HTTPRequest) throws(HTTPDecodingError) -> HTTPDecoderEvent? {
        // Pending from here on, so that an error below still names the request.
        pending = request
        pendingBody = []
        let hosts = request.headers.count(of: "Host")
        if hosts > 1 || (request.version.minor >= 1 && hosts == 0) {
            throw HTTPDecodingError(.invalidHost, "an HTTP/1.1 request needs exactly one Host header")
        }
        // RFC 9112 §3.2.2: the authority of an absolute-form target replaces Host.
        if let authority = request.authority { pending!.headers.set("Host", authority) }
        let framing = try RequestFraming(request.headers, version: request.version, maxBody: limits.maxBodyBytes)
        let expectsContinue = try Self.expectsContinue(request)
        bodySize = 0
        switch framing {
        case .none:
            return finishRequest()
        case .length(let length):
            pendingBody.reserveCapacity(length)
            state = .fixedBody(remaining: length)
        case .chunked:
            state = .chunkSize
        }
        // A client that already started sending the body did not wait; 100 would be noise.
        if expectsContinue, bufferedByteCount == 0 { return .continueExpected }
        return nil
    }

    private static func expectsContinue(_ request: HTTPRequest) throws(HTTPDecodingError) -> Bool {
        let expectations = request.headers.values(for: "Expect")
        guard !expectations.isEmpty else { return false }
        guard expectations.allSatisfy({ $0.equalsIgnoringASCIICase("100-continue") }) else {
            throw HTTPDecodingError(.unsupportedExpectation, "only Expect: 100-continue is supported")
        }
        // RFC 9110 §10.1.1: an HTTP/1.0 expectation is ignored.
        return request.version.minor >= 1
    }

    /// Reads one chunk-size line; false when it is not complete yet.
    private mutating func readChunkSize() throws(HTTPDecodingError) -> Bool {
        let lineLimit = 4096
        var end = readIndex
        while end < buffer.count, buffer[end] != HTTPHeadParser.lf {
            end += 1
            if end - readIndex > lineLimit { throw HTTPDecodingError(.malformedChunk, "chunk size line too long") }
        }
        guard end < buffer.count else { return false }
        var size = 0, digits = 0, index = readIndex
        while index < end, let digit = FormCoding.hexValue(buffer[index]) {
            guard digits < 15 else { throw HTTPDecodingError(.malformedChunk, "chunk size too large") }
            size = size << 4 | Int(digit)
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw HTTPDecodingError(.malformedChunk, "invalid chunk size") }
        var lineEnd = end
        if lineEnd > index, buffer[lineEnd - 1] == HTTPHeadParser.cr { lineEnd -= 1 }
        // What follows the size must be an extension (`;name=value`), possibly after whitespace; ignored.
        while index < lineEnd, buffer[index] == HTTPHeadParser.space || buffer[index] == HTTPHeadParser.tab { index += 1 }
        if index < lineEnd {
            guard buffer[index] == UInt8(ascii: ";"),
                  buffer[index..<lineEnd].allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == HTTPHeadParser.tab }) else {
                throw HTTPDecodingError(.malformedChunk, "invalid chunk size line")
            }
        }
        readIndex = end + 1
        if size == 0 {
            state = .trailers(lineStart: readIndex, scanned: readIndex)
            return true
        }
        bodySize += size
        if bodySize > limits.maxBodyBytes {
            throw HTTPDecodingError(.bodyTooLarge, "request body exceeds \(limits.maxBodyBytes) bytes")
        }
        state = .chunkData(remaining: size)
        return true
    }

    private mutating func finishRequest() -> HTTPDecoderEvent {
        state = .head(lineStart: readIndex, scanned: readIndex)
        var request = pending!
        pending = nil
        if !pendingBody.isEmpty {
            request.body = pendingBody
            pendingBody = []
        }
        return .request(request)
    }

    /// RFC 9112 §2.2: a server should ignore blank lines received before a request line.
    private mutating func skipLeadingBlankLines() {
        while readIndex < buffer.count {
            if buffer[readIndex] == HTTPHeadParser.lf {
                readIndex += 1
            } else if buffer[readIndex] == HTTPHeadParser.cr, readIndex + 1 < buffer.count, buffer[readIndex + 1] == HTTPHeadParser.lf {
                readIndex += 2
            } else {
                return
            }
        }
    }

    private var onlyBlankLinesBuffered: Bool {
        buffer[readIndex...].allSatisfy { $0 == HTTPHeadParser.cr || $0 == HTTPHeadParser.lf }
    }

    /// The end of a head or trailer section (past its blank line), nil while incomplete; enforces the
    /// size limit before the end is seen, so an endless header cannot grow the buffer.
    private mutating func sectionEnd(_ lineStart: Int, _ scanned: Int, name: String,
                                     resume: (_ lineStart: Int, _ scanned: Int) -> State) throws(HTTPDecodingError) -> Int? {
        let scan = findBlankLine(from: max(lineStart, readIndex), scanned: scanned)
        let size = (scan.end ?? buffer.count) - readIndex
        if size > limits.maxHeadBytes {
            throw HTTPDecodingError(.headersTooLarge, "\(name) exceed \(limits.maxHeadBytes) bytes")
        }
        if scan.end == nil { state = resume(scan.lineStart, scan.scanned) }
        return scan.end
    }

    /// Walks lines from `lineStart`; returns the index just past the first empty line, or where the
    /// unfinished line begins and how far it was scanned, so that trickled bytes are looked at once.
    private func findBlankLine(from lineStart: Int, scanned: Int) -> (end: Int?, lineStart: Int, scanned: Int) {
        var lineStart = lineStart
        var index = max(lineStart, scanned)
        let count = buffer.count
        return buffer.withUnsafeBufferPointer { bytes in
            while lineStart < count {
                if index == lineStart {
                    if bytes[lineStart] == HTTPHeadParser.lf { return (lineStart + 1, lineStart, lineStart) }
                    if bytes[lineStart] == HTTPHeadParser.cr {
                        guard lineStart + 1 < count else { break }
                        if bytes[lineStart + 1] == HTTPHeadParser.lf { return (lineStart + 2, lineStart, lineStart) }
                    }
                }
                while index < count, bytes[index] != HTTPHeadParser.lf { index += 1 }
                guard index < count else { break }
                lineStart = index + 1
                index = lineStart
            }
            return (nil, lineStart, index)
        }
    }

    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 256 * 1024)
            shiftState(by: readIndex)
            readIndex = 0
        } else if readIndex > 32 * 1024, readIndex * 2 > buffer.count {
            buffer.removeFirst(readIndex)
            shiftState(by: readIndex)
            readIndex = 0
        }
    }

    private mutating func shiftState(by offset: Int) {
        switch state {
        case .head(let lineStart, let scanned):
            state = .head(lineStart: max(0, lineStart - offset), scanned: max(0, scanned - offset))
        case .trailers(let lineStart, let scanned):
            state = .trailers(lineStart: max(0, lineStart - offset), scanned: max(0, scanned - offset))
        default: break
        }
    }
}
