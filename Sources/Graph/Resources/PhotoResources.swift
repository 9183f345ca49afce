import EntraHTTP
import FoundationGaps
import LocatedJSON
import ExchangeKernel
import IdentityPlatform

/// `/me/photo`, `/me/photo/$value`, `/me/photos`, `/me/photos/{size}[/$value]` and their `/users/{id}/…` forms.
extension GraphResources {
    /// One available size of a user's photo.
    struct PhotoVariant {
        /// `default` for `/photo`, `48X48` for `/photos/48x48`.
        var id: String
        var bytes: [UInt8]
        var info: ImageInfo
    }

    /// Exchange's HD photo sizes; an initials avatar is drawn at any of them up to its configured size.
    static let standardSizes = [48, 64, 96, 120, 240, 360, 432, 504, 648]

    func photo(_ subject: GraphSubject, size: String?) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select"])
        let user = try resolve(subject, access: .profile)
        let variant = try photoVariant(of: user, size: size)
        let entity = size == nil ? "photo" : "photos"
        let identity = "\(exchange.serviceRootURL)/\(entityKey(of: user))/" + (size.map { "photos('\($0)')" } ?? "photo")
        return exchange.ok(.object([("@odata.context", .string("\(exchange.metadataURL)#\(usersSegment(user))/\(entity)/$entity")),
                                    ("@odata.id", .string(identity))] + members(variant)))
    }

    func photos(_ subject: GraphSubject) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select"])
        let user = try resolve(subject, access: .profile)
        let variants = photoVariants(of: user)
        return exchange.ok(.object([
            ("@odata.context", .string("\(exchange.metadataURL)#\(usersSegment(user))/photos")),
            ("value", .array(variants.map { .object(members($0)) })),
        ]))
    }

    func photoValue(_ subject: GraphSubject, size: String?) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly([])
        let user = try resolve(subject, access: .profile)
        let variant = try photoVariant(of: user, size: size)
        var response = HTTPResponse(status: .ok, headers: exchange.trace.commonHeaders, body: variant.bytes)
        response.headers.set("Content-Type", variant.info.contentType)
        response.headers.set("ETag", Self.etag(variant.bytes))
        response.headers.set("Cache-Control", "private")
        return response
    }

    private func members(_ variant: PhotoVariant) -> [(String, JSONValue)] {
        [
            ("@odata.mediaContentType", .string(variant.info.contentType)),
            ("@odata.mediaEtag", .string(Self.etag(variant.bytes))),
            ("id", .string(variant.id)),
            ("height", .int(variant.info.height)),
            ("width", .int(variant.info.width)),
        ]
    }

    /// Which sizes to produce (avatars cost a PNG encoding each).
    enum PhotoSelection {
        case all
        case largest
        case id(String)
    }

    /// The photo at `size` (`48x48`), or the largest one as `default` when nil; 404 `ImageNotFound` when there is none.
    private func photoVariant(of user: DirectoryUser, size: String?) throws(GraphError) -> PhotoVariant {
        guard let variant = photoVariants(of: user, selecting: size.map { .id($0) } ?? .largest).last else { throw .imageNotFound }
        return size == nil ? PhotoVariant(id: "default", bytes: variant.bytes, info: variant.info) : variant
    }

    /// The sizes the user's photo comes in, smallest first: an initials avatar at each standard size up to its
    /// own, configured bytes at their own size only.
    private func photoVariants(of user: DirectoryUser, selecting selection: PhotoSelection = .all) -> [PhotoVariant] {
        guard let source = dataset.content(for: user)?.photo else { return [] }
        let keep = { (variants: [PhotoVariant]) -> [PhotoVariant] in
            switch selection {
            case .all: variants
            case .largest: variants.suffix(1)
            case .id(let id): variants.filter { $0.id.caseInsensitiveCompare(id) == .orderedSame }
            }
        }
        if let generated = source.generated {
            let initials = generated.initials ?? [user.givenName, user.surname].compactMap { $0?.first.map(String.init) }.joined()
            let own = min(max(generated.size ?? 96, 8), 648)
            let sides = Self.standardSizes.filter { $0 < own } + [own]
            let chosen: [Int] = switch selection {
            case .all: sides
            case .largest: [own]
            case .id(let id): sides.filter { "\($0)X\($0)".caseInsensitiveCompare(id) == .orderedSame }
            }
            return chosen.compactMap { side in
                let bytes = InitialsAvatar.png(
                    initials: initials.isEmpty ? String(user.displayName.prefix(1)) : initials, background: generated.background, size: side
                )
                return ImageInfo(bytes).map { PhotoVariant(id: "\(side)X\(side)", bytes: bytes, info: $0) }
            }
        }
        guard let base64 = source.base64, let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters),
              let info = ImageInfo(Array(data)) else { return [] }
        return keep([PhotoVariant(id: "\(info.width)X\(info.height)", bytes: Array(data), info: info)])
    }

    /// `"BA09D118"`: a strong validator over the bytes (their CRC-32), quoted as Graph's `mediaEtag`.
    private static func etag(_ bytes: [UInt8]) -> String {
        "\"" + String(format: "%08X", PNGEncoder.crc32(bytes)) + "\""
    }
}
