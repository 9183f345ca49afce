import EntraHTTP

/// Everything a decoder produced for some input, fed in pieces of `chunkSize` bytes (nil: all at once).
struct Decoded: Equatable {
    var events: [HTTPDecoderEvent] = []
    var error: HTTPDecodingError?

    var requests: [HTTPRequest] {
        events.compactMap { if case .request(let request) = $0 { request } else { nil } }
    }
}

func decode(_ text: String, chunkSize: Int? = nil, limits: HTTPRequestDecoder.Limits = .init()) -> Decoded {
    decode(Array(text.utf8), chunkSize: chunkSize, limits: limits)
}

func decode(_ bytes: [UInt8], chunkSize: Int? = nil, limits: HTTPRequestDecoder.Limits = .init()) -> Decoded {
    var decoder = HTTPRequestDecoder(limits: limits)
    var result = Decoded()
    let step = chunkSize ?? max(bytes.count, 1)
    var offset = 0
    repeat {
        let end = min(offset + step, bytes.count)
        decoder.append(contentsOf: bytes[offset..<end])
        offset = end
        do {
            while let event = try decoder.next() { result.events.append(event) }
        } catch {
            result.error = error
            return result
        }
    } while offset < bytes.count
    return result
}

/// Decodes whole and byte by byte and checks that both agree, so every test also covers split points.
func decodeEverySplit(_ text: String, limits: HTTPRequestDecoder.Limits = .init()) -> (whole: Decoded, byteByByte: Decoded) {
    (decode(text, limits: limits), decode(text, chunkSize: 1, limits: limits))
}
