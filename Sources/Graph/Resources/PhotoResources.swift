import EntraHTTP
import Foundation
import IdentityPlatform

/// `/me/photo`, `/me/photo/$value` and their `/users/{id}/…` forms.
extension GraphResources {
    func photo(_ subject: GraphSubject) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select"])
        let user = try resolve(subject, access: .profile)
        let (bytes, info) = try photoBytes(of: user)
        let graphID = GraphUserView.graphID(of: user, tenant: directory.tenant(id: user.tenantID))
        return exchange.ok(.object([
            .init("@odata.context", .string("\(exchange.metadataURL)#users('\(graphID)')/photo/$entity")),
            .init("@odata.mediaContentType", .string(info.contentType)),
            .init("@odata.mediaEtag", .string(Self.etag(bytes))),
            .init("id", .string("default")),
            .init("height", .int(info.height)),
            .init("width", .int(info.width)),
        ]))
    }

    func photoValue(_ subject: GraphSubject) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly([])
        let user = try resolve(subject, access: .profile)
        let (bytes, info) = try photoBytes(of: user)
        var response = HTTPResponse(status: .ok, headers: exchange.trace.commonHeaders, body: bytes)
        response.headers.set("Content-Type", info.contentType)
        response.headers.set("ETag", Self.etag(bytes))
        response.headers.set("Cache-Control", "private")
        return response
    }

    /// The user's photo bytes, or 404 `ImageNotFound`.
    private func photoBytes(of user: DirectoryUser) throws(GraphError) -> ([UInt8], ImageInfo) {
        guard let source = dataset.content(for: user)?.photo else { throw .imageNotFound }
        let bytes: [UInt8]
        if let generated = source.generated {
            let initials = generated.initials ?? [user.givenName, user.surname].compactMap { $0?.first.map(String.init) }.joined()
            bytes = InitialsAvatar.png(
                initials: initials.isEmpty ? String(user.displayName.prefix(1)) : initials,
                background: generated.background, size: min(max(generated.size ?? 96, 8), 648)
            )
        } else if let base64 = source.base64, let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) {
            bytes = Array(data)
        } else {
            throw .imageNotFound
        }
        guard let info = ImageInfo(bytes) else { throw .imageNotFound }
        return (bytes, info)
    }

    /// `"BA09D118"`: a strong validator over the bytes (their CRC-32), quoted as Graph's `mediaEtag`.
    private static func etag(_ bytes: [UInt8]) -> String {
        "\"" + String(format: "%08X", PNGEncoder.crc32(bytes)) + "\""
    }
}
