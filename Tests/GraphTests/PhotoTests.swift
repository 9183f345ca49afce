import Foundation
import IdentityPlatform
import Testing
import EntraHTTP
@testable import Graph

@Suite("Profile photos")
struct PhotoTests {
    let fixture = GraphFixture()

    /// Splits a PNG into chunks, checking the signature and every chunk's CRC on the way.
    func chunks(_ png: [UInt8]) throws -> [(type: String, data: [UInt8])] {
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var result: [(String, [UInt8])] = []
        var i = 8
        while i < png.count {
            try #require(i + 12 <= png.count)
            let length = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            let typeAndData = Array(png[(i + 4)..<(i + 8 + length)])
            let stored = png[(i + 8 + length)..<(i + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(stored == Self.referenceCRC(typeAndData), "CRC of \(String(decoding: typeAndData.prefix(4), as: UTF8.self))")
            result.append((String(decoding: typeAndData.prefix(4), as: UTF8.self), Array(typeAndData.dropFirst(4))))
            i += 12 + length
        }
        return result
    }

    /// Bit-by-bit CRC-32, independent of the encoder's table.
    static func referenceCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }

    @Test func checksumsMatchKnownValues() {
        #expect(PNGEncoder.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(PNGEncoder.crc32(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test func avatarIsAValidPNG() throws {
        let png = InitialsAvatar.png(initials: "AV", background: "#8764B8")
        let parts = try chunks(png)
        #expect(parts.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(parts[0].data == [0, 0, 0, 96, 0, 0, 0, 96, 8, 2, 0, 0, 0])
        #expect(ImageInfo(png) == ImageInfo(contentType: "image/png", width: 96, height: 96))
        let stream = parts[1].data
        #expect(stream.prefix(2) == [0x78, 0x01])
        #expect((UInt16(stream[0]) << 8 | UInt16(stream[1])) % 31 == 0)
        // Undo the stored blocks by hand and check Adler-32 and the pixels.
        var raw: [UInt8] = []
        var i = 2
        var final = false
        while !final {
            final = stream[i] & 1 == 1
            #expect(stream[i] >> 1 == 0, "stored block")
            let length = Int(stream[i + 1]) | Int(stream[i + 2]) << 8
            let complement = Int(stream[i + 3]) | Int(stream[i + 4]) << 8
            #expect(length ^ complement == 0xFFFF)
            raw += stream[(i + 5)..<(i + 5 + length)]
            i += 5 + length
        }
        #expect(stream[i...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } == PNGEncoder.adler32(raw))
        #expect(raw.count == 96 * (1 + 96 * 3))
        #expect(raw[0] == 0 && Array(raw[1...3]) == [0x87, 0x64, 0xB8], "first pixel is background")
        let centreRow = 48 * (1 + 96 * 3)
        #expect(stride(from: 1, to: 1 + 96 * 3, by: 3).contains { raw[centreRow + $0] == 0xFF }, "letters cross the middle row")
    }

    @Test func largeImagesSpanSeveralStoredBlocks() throws {
        let png = PNGEncoder.encode(width: 200, height: 200, rgb: [UInt8](repeating: 7, count: 200 * 200 * 3))
        let idat = try #require(try chunks(png).first { $0.type == "IDAT" })
        #expect(idat.data[2] == 0, "first block is not final")
        try decodeWithPython(png, expecting: (200, 200))
    }

    @Test func pythonsZlibDecodesTheAvatar() throws {
        try decodeWithPython(InitialsAvatar.png(initials: "AV", background: "#8764B8"), expecting: (96, 96))
    }

    /// An independent inflate: Python's zlib must decompress the image data to exactly the expected scanlines.
    func decodeWithPython(_ png: [UInt8], expecting size: (Int, Int)) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return }
        let path = NSTemporaryDirectory() + "graph-avatar-\(UUID().uuidString).png"
        try Data(png).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = """
        import sys, zlib, struct
        d = open(sys.argv[1], 'rb').read()
        i, idat, ihdr = 8, b'', None
        while i < len(d):
            n = struct.unpack('>I', d[i:i+4])[0]; t = d[i+4:i+8]; body = d[i+8:i+8+n]
            assert zlib.crc32(t + body) == struct.unpack('>I', d[i+8+n:i+12+n])[0]
            if t == b'IHDR': ihdr = struct.unpack('>II', body[:8])
            if t == b'IDAT': idat += body
            i += 12 + n
        raw = zlib.decompress(idat)
        print(ihdr[0], ihdr[1], len(raw))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "\(size.0) \(size.1) \(size.1 * (1 + size.0 * 3))")
    }

    @Test func photoMetadata() throws {
        let response = fixture.get("/v1.0/me/photo", token: fixture.token())
        #expect(response.status == .ok)
        let json = response.json
        #expect(json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('\(Demo.adele)')/photo/$entity")
        #expect(json["@odata.mediaContentType"] as? String == "image/png")
        #expect(json["width"] as? Int == 96)
        #expect(json["height"] as? Int == 96)
        #expect(json["id"] as? String == "default")
        let etag = try #require(json["@odata.mediaEtag"] as? String)
        #expect(etag.count == 10 && etag.hasPrefix("\""))
    }

    @Test func photoValueIsThePNG() throws {
        let response = fixture.get("/v1.0/me/photo/$value", token: fixture.token())
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "image/png")
        #expect(ImageInfo(response.body)?.width == 96)
        #expect(try chunks(response.body).count == 3)
        let escaped = fixture.get("/v1.0/users/\(Demo.adele)/photo/%24value", token: fixture.appToken(roles: ["User.Read.All"]))
        #expect(escaped.body == response.body)
    }

    @Test func missingPhotoIsImageNotFound() {
        let token = fixture.token(user: Demo.alex)
        for target in ["/v1.0/me/photo/$value", "/v1.0/me/photo"] {
            let response = fixture.get(target, token: token)
            #expect(response.status == .notFound)
            #expect(response.headers["Content-Type"] == "application/json")
            #expect(response.bodyText == expectedErrorBody(
                code: "ImageNotFound", message: "Exception of type 'Microsoft.Fast.Profile.Core.Exception.ImageNotFoundException' was thrown.",
                response: response
            ))
        }
    }

    @Test func otherUsersPhotoNeedsDirectoryPermission() {
        #expect(fixture.get("/v1.0/users/\(Demo.adele)/photo/$value", token: fixture.token(user: Demo.alex, scopes: "User.Read")).status == .forbidden)
        #expect(fixture.get("/v1.0/users/\(Demo.adele)/photo/$value", token: fixture.token(user: Demo.alex, scopes: "User.ReadBasic.All")).status == .ok)
    }

    @Test func configuredPhotoBytesAreServedAsIs() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x30, 0x00, 0x40, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xD9]
        var dataset = GraphDataset.embeddedDefault
        dataset.users["alex.wilber@contoso.onmicrosoft.com"]?.photo = GraphPhotoSource(base64: Data(jpeg).base64EncodedString())
        let fixture = GraphFixture(dataset: dataset)
        let token = fixture.token(user: Demo.alex)
        let value = fixture.get("/v1.0/me/photo/$value", token: token)
        #expect(value.headers["Content-Type"] == "image/jpeg")
        #expect(value.body == jpeg)
        let meta = fixture.get("/v1.0/me/photo", token: token).json
        #expect(meta["width"] as? Int == 64)
        #expect(meta["height"] as? Int == 48)
    }

    @Test func photoSizes() throws {
        let token = fixture.token()
        let list = fixture.get("/v1.0/me/photos", token: token)
        #expect(list.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('\(Demo.adele)')/photos")
        #expect(list.values.compactMap { $0["id"] as? String } == ["48X48", "64X64", "96X96"])
        let small = fixture.get("/v1.0/me/photos/48x48/$value", token: token)
        #expect(ImageInfo(small.body) == ImageInfo(contentType: "image/png", width: 48, height: 48))
        #expect(try chunks(small.body).count == 3)
        let meta = fixture.get("/v1.0/me/photos/64X64", token: token).json
        #expect(meta["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#users('\(Demo.adele)')/photos/$entity")
        #expect(meta["width"] as? Int == 64)
        #expect(fixture.get("/v1.0/me/photos/240x240/$value", token: token).errorCode == "ImageNotFound")
        #expect(fixture.get("/v1.0/me/photos", token: fixture.token(user: Demo.alex)).values.isEmpty)
    }
}
