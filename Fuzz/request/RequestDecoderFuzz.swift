// libFuzzer target for HTTPRequestDecoder (EntraHTTP), linked by scripts/fuzz.
// Besides "never crash, never hang", it checks a differential property: feeding the same bytes
// whole or in pieces must yield the same requests and the same error.
@testable import EntraHTTP

struct FuzzOutcome: Equatable {
    var requests: [HTTPRequest] = []
    var error: HTTPDecodingError.Kind?
}

func decodeForFuzzing(_ bytes: [UInt8], step: Int, limits: HTTPRequestDecoder.Limits) -> FuzzOutcome {
    var decoder = HTTPRequestDecoder(limits: limits)
    var outcome = FuzzOutcome()
    var offset = 0
    repeat {
        let end = min(offset + max(step, 1), bytes.count)
        decoder.append(contentsOf: bytes[offset..<end])
        offset = end
        do {
            while let event = try decoder.next() {
                // `.continueExpected` legitimately depends on whether body bytes came with the head.
                if case .request(let request) = event {
                    outcome.requests.append(request)
                    require(!request.method.isEmpty && !request.target.isEmpty)
                    require(request.body.count <= limits.maxBodyBytes)
                }
            }
        } catch {
            outcome.error = error.kind
            let response = error.response
            require(response.directives.closeAfterResponse && response.status.code >= 400)
            return outcome
        }
    } while offset < bytes.count
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func requestDecoderFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let small = HTTPRequestDecoder.Limits(maxHeadBytes: 256, maxBodyBytes: 512)
    for limits in [HTTPRequestDecoder.Limits(), small] {
        let whole = decodeForFuzzing(bytes, step: bytes.count, limits: limits)
        let split = decodeForFuzzing(bytes, step: 1 + Int(bytes.first ?? 0) % 13, limits: limits)
        require(whole == split, "feeding in pieces changed the outcome")
        for request in whole.requests {
            var encoded: [UInt8] = []
            let response = HTTPResponse(status: .ok, headers: request.headers, body: request.body)
            HTTPResponseEncoder.encode(response, isHead: request.isHead, keepAlive: request.wantsKeepAlive, date: "Thu, 01 Jan 1970 00:00:00 GMT", into: &encoded)
            require(!encoded.isEmpty)
        }
    }
    if size <= 512 {
        let bytewise = decodeForFuzzing(bytes, step: 1, limits: small)
        require(bytewise == decodeForFuzzing(bytes, step: bytes.count, limits: small), "byte-by-byte feeding changed the outcome")
    }
    return 0
}
