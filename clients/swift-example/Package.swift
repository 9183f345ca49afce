// swift-tools-version: 6.0
import PackageDescription

// A web API on Hummingbird that accepts Entra access tokens, and its tests against FakeEntra
// (docs/testing-swift.md). In your own package, depend on FakeEntra by its URL instead of this path.
let package = Package(
    name: "OrdersAPI",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "FakeEntra", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .target(name: "OrdersAPI", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        .testTarget(name: "OrdersAPITests", dependencies: [
            "OrdersAPI",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "FakeEntraTesting", package: "FakeEntra"),
        ]),
    ]
)
