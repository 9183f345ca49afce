// swift-tools-version: 6.0
import PackageDescription

/// Every Swift target is compiled in Swift 6 language mode with the same hygiene flags (as Hummingbird):
/// imports are internal unless a file says `package import`/`public import` (SE-0409), and a file sees
/// only the members of modules it imports itself (SE-0444). Declarations that cross modules inside the
/// package are `package`; only FakeEntraTesting's API is `public` (docs/architecture.md).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "FakeEntra",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "fakeentra", targets: ["fakeentra"]),
        // For Swift users' tests and ours: FakeEntra in process, router and live clients, sign-ins, mints.
        .library(name: "FakeEntraTesting", targets: ["FakeEntraTesting"]),
        // The control API's client alone (URLSession, no OpenSSL, no SQLite): for iOS unit and UI test targets.
        .library(name: "FakeEntraControl", targets: ["FakeEntraControl"]),
        // The benchmark's load driver (scripts/bench); the shipping `fakeentra` does not link it.
        .executable(name: "fakeentra-load", targets: ["fakeentra-load"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The fence around OpenSSL: a system library, a C shim for macros, and the two Swift
        // modules allowed to import them (EntraCrypto for crypto, EntraServer for TLS).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .target(name: "COpenSSLShims", dependencies: ["COpenSSL"]),
        .target(name: "EntraCrypto", dependencies: ["FoundationGaps", "COpenSSL", "COpenSSLShims", "LocatedJSON"], swiftSettings: swiftSettings),

        // `serve --state DIR`: Debian's libsqlite3 as a system library, and the one module that imports it.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),

        // HTTP/1.1 as pure values: codec, headers, forms, cookies. No sockets.
        .target(name: "EntraHTTP", dependencies: ["FoundationGaps"], swiftSettings: swiftSettings),
        // Sockets, epoll/kqueue loops, TLS, server lifecycle.
        .target(name: "EntraServer", dependencies: ["FoundationGaps", 
            "EntraHTTP", "COpenSSL", "COpenSSLShims",
            .byName(name: "CKqueueEmulation", condition: .when(platforms: [.linux])),
        ], swiftSettings: swiftSettings),
        // Darwin's kqueue(2) over epoll, so Linux CI compiles and runs the Mac's event backend.
        .target(name: "CKqueueEmulation"),

        // JSON with source positions and a JSON Schema validator for config and scenario files.
        .target(name: "LocatedJSON", dependencies: ["LinearRegex"], swiftSettings: swiftSettings),

        // The published JSON (docs/schemas, Scenarios/) compiled into the targets that serve it, at build
        // time: the files are the one source, nothing generated is checked in.
        .plugin(name: "EmbedResources", capability: .buildTool()),

        // What every service's exchange shares: its context and route, the receipt, the page frame.
        .target(name: "ExchangeKernel", dependencies: ["FoundationGaps", "EntraHTTP", "EntraCrypto", "LocatedJSON"], swiftSettings: swiftSettings),
        // The journal: every exchange recorded with its receipt, secrets redacted, read as JSON or HAR.
        .target(name: "Journal", dependencies: ["FoundationGaps", "ExchangeKernel", "EntraHTTP", "EntraCrypto", "LocatedJSON"], swiftSettings: swiftSettings),
        // Regular expressions matched in linear time (scenario rules, user-flow attribute checks): no backtracking.
        .target(name: "LinearRegex", swiftSettings: swiftSettings),
        // What FakeEntra uses of Foundation beyond FoundationEssentials (string search, CharacterSet, `String(format:)`,
        // path edits, FileHandle), so the shipping binary links no ICU.
        .target(name: "FoundationGaps", swiftSettings: swiftSettings),

        // Protocol logic, request in, response out: Entra ID's protocol, B2C's policy authorities, Graph.
        .target(name: "IdentityPlatform", dependencies: ["FoundationGaps", "LinearRegex", "ExchangeKernel", "EntraHTTP", "EntraCrypto", "LocatedJSON"], swiftSettings: swiftSettings, plugins: ["EmbedResources"]),
        .target(name: "B2C", dependencies: ["FoundationGaps", "IdentityPlatform", "ExchangeKernel", "EntraHTTP", "EntraCrypto", "LocatedJSON"], swiftSettings: swiftSettings, plugins: ["EmbedResources"]),
        .target(name: "Graph", dependencies: ["FoundationGaps", "IdentityPlatform", "ExchangeKernel", "EntraHTTP", "EntraCrypto", "LocatedJSON"], swiftSettings: swiftSettings, plugins: ["EmbedResources"]),

        // Azure Resource Manager as signing in needs it: tenants, subscriptions, cloud metadata.
        .target(name: "ResourceManager", dependencies: ["FoundationGaps", "IdentityPlatform", "ExchangeKernel", "EntraHTTP", "EntraCrypto", "LocatedJSON"], swiftSettings: swiftSettings),

        // Managed identities' token endpoints: IMDS and App Service's.
        .target(name: "ManagedIdentity", dependencies: ["FoundationGaps", "IdentityPlatform", "ExchangeKernel", "EntraHTTP", "LocatedJSON"], swiftSettings: swiftSettings),

        // `fakeentra browse`: FakeEntra's sign-in pages walked without a browser, over any transport.
        .target(name: "HeadlessBrowser", dependencies: ["FoundationGaps", "EntraHTTP", "LocatedJSON"], swiftSettings: swiftSettings),

        // Scripted scenarios: files, rules, bindings, control API, HAR replay.
        .target(name: "Scenarios", dependencies: ["FoundationGaps", "LinearRegex", "IdentityPlatform", "ExchangeKernel", "EntraHTTP", "EntraCrypto", "LocatedJSON"], swiftSettings: swiftSettings, plugins: ["EmbedResources"]),

        // The client conformance suite: case catalogue, journeys, judge, baseline and reports (pure);
        // its sessions bind each case's scenario to a fresh client id on the engine.
        .target(name: "Conformance", dependencies: ["FoundationGaps", "Journal", "IdentityPlatform", "EntraCrypto", "ExchangeKernel", "Scenarios", "B2C", "EntraHTTP", "LocatedJSON"], swiftSettings: swiftSettings),

        // Every /_fakeentra/ endpoint behind one access rule: health, journal reads, token mint, conformance
        // runs, the control API (scenarios, bindings, reset, clock, directory edits), the cross-site guard.
        .target(name: "ControlPlane", dependencies: ["FoundationGaps", "Journal", "EntraHTTP", "EntraCrypto", "IdentityPlatform", "ExchangeKernel", "Scenarios", "Conformance", "LocatedJSON"], swiftSettings: swiftSettings),
        // The web console at /: server-rendered pages over the engine, journal and worlds; changes are the control plane's commands.
        .target(name: "Console", dependencies: ["FoundationGaps", "Journal", "EntraHTTP", "EntraCrypto", "IdentityPlatform", "ExchangeKernel", "B2C", "Scenarios", "ControlPlane", "LocatedJSON"], swiftSettings: swiftSettings),
        // The platform's state in SQLite (`--state DIR`); owns every SQLite pointer.
        .target(name: "StateStore", dependencies: ["FoundationGaps", "CSQLite", "IdentityPlatform", "ExchangeKernel"], swiftSettings: swiftSettings),

        // Assembles the modules into the stack of layers the server runs.
        .target(name: "FakeEntraApp", dependencies: ["FoundationGaps", "Journal", "EntraHTTP", "EntraServer", "EntraCrypto", "IdentityPlatform", "ExchangeKernel", "B2C", "Graph", "ResourceManager", "ManagedIdentity", "Scenarios", "Console", "ControlPlane", "Conformance", "LocatedJSON"], swiftSettings: swiftSettings),

        // The test library: starts the application in process (port 0 or no socket) and drives it.
        .target(name: "FakeEntraControl", dependencies: ["LocatedJSON"], swiftSettings: swiftSettings),
        .target(name: "FakeEntraTesting", dependencies: ["Journal", "FakeEntraControl", "FakeEntraApp", "EntraServer", "EntraHTTP", "EntraCrypto", "IdentityPlatform", "ExchangeKernel", "HeadlessBrowser", "Scenarios", "Console", "LocatedJSON"], swiftSettings: swiftSettings),

        .executableTarget(
            name: "fakeentra",
            dependencies: [
                "FoundationGaps", "EntraServer", "EntraHTTP", "EntraCrypto", "FakeEntraApp", "Console", "Conformance", "IdentityPlatform", "Scenarios", "B2C", "Graph", "LocatedJSON", "StateStore", "HeadlessBrowser", "Journal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // scripts/bench's native load driver: plain HTTP/1.1 keep-alive clients on our own codec.
        .executableTarget(name: "fakeentra-load", dependencies: ["EntraHTTP"], swiftSettings: swiftSettings),
        // Not shipped: measures the state's memory and its effect on issuance (scripts/bench-state).
        .target(name: "CMallocStats"),
        .executableTarget(name: "StateBench", dependencies: ["Journal", "IdentityPlatform", "ExchangeKernel", "StateStore", "FakeEntraApp", "Scenarios", "EntraHTTP", "EntraCrypto", "CMallocStats", "LocatedJSON"], swiftSettings: swiftSettings),

        .testTarget(name: "FoundationGapsTests", dependencies: ["FoundationGaps"], swiftSettings: swiftSettings),
        .testTarget(name: "EntraCryptoTests", dependencies: ["EntraCrypto"], swiftSettings: swiftSettings),
        .testTarget(name: "EntraHTTPTests", dependencies: ["EntraHTTP"], swiftSettings: swiftSettings),
        // Sockets, processes and the OpenSSL 3 CLI for the tests, the same on Linux and macOS.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "EntraServerTests", dependencies: ["EntraServer", "EntraHTTP", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LocatedJSONTests", dependencies: ["LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "LinearRegexTests", dependencies: ["LinearRegex"], swiftSettings: swiftSettings),
        .testTarget(name: "ControlPlaneTests", dependencies: ["ControlPlane", "Scenarios", "EntraHTTP", "LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "FakeEntraControlTests", dependencies: ["FakeEntraControl", "FakeEntraTesting"], swiftSettings: swiftSettings),
        .target(name: "IdentityFixtures", dependencies: ["IdentityPlatform", "ExchangeKernel", "EntraCrypto", "EntraHTTP"], path: "Tests/IdentityFixtures", swiftSettings: swiftSettings),
        .testTarget(name: "IdentityPlatformTests", dependencies: ["IdentityFixtures", "Journal", "IdentityPlatform", "ExchangeKernel", "EntraCrypto", "EntraHTTP", "LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "JournalTests", dependencies: ["IdentityFixtures", "Journal", "IdentityPlatform", "ExchangeKernel", "ControlPlane", "Graph", "EntraHTTP", "LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "B2CTests", dependencies: ["Journal", "B2C", "IdentityPlatform", "ExchangeKernel", "EntraCrypto", "EntraHTTP", "LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "ScenariosTests", dependencies: ["Journal", "Scenarios", "ControlPlane", "Conformance", "IdentityPlatform", "ExchangeKernel", "Graph", "B2C", "ResourceManager", "ManagedIdentity", "FakeEntraApp", "EntraHTTP", "EntraCrypto", "LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "GraphTests", dependencies: ["Graph", "IdentityPlatform", "ExchangeKernel", "EntraCrypto", "EntraHTTP", "LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "FakeEntraAppTests", dependencies: ["Journal", "FakeEntraApp", "ControlPlane", "FakeEntraTesting", "EntraHTTP", "EntraCrypto", "EntraServer", "IdentityPlatform", "ExchangeKernel", "Scenarios", "Graph", "B2C", "ResourceManager", "ManagedIdentity", "LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "ConsoleTests", dependencies: ["Journal", "Console", "ControlPlane", "FakeEntraApp", "IdentityPlatform", "ExchangeKernel", "Scenarios", "EntraHTTP", "EntraCrypto", "LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "ConformanceTests", dependencies: ["Journal", "Conformance", "FakeEntraApp", "FakeEntraTesting", "IdentityPlatform", "ExchangeKernel", "Scenarios", "EntraHTTP", "LocatedJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "StateStoreTests", dependencies: ["StateStore", "FakeEntraApp", "IdentityPlatform", "ExchangeKernel", "EntraCrypto", "EntraHTTP"], swiftSettings: swiftSettings),
        .testTarget(name: "HeadlessBrowserTests", dependencies: ["HeadlessBrowser", "FakeEntraApp", "EntraHTTP", "EntraCrypto", "IdentityPlatform", "ExchangeKernel", "B2C", "Scenarios"], swiftSettings: swiftSettings),
        // Starts the real `fakeentra` binary on port 0 and talks to it with curl and openssl.
        .testTarget(name: "LiveTests", dependencies: ["fakeentra", "TestSupport"], swiftSettings: swiftSettings),
    ]
)
