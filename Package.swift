// swift-tools-version:6.1
// PayPulse Gmail Connect.
//
// The layers, lowest first. A target may depend only on targets of a lower layer; targets
// of one layer never know each other (the domain and the adapters meet only in the ports).
// `make lint` checks every edge of `swift package dump-package` against this list
// (scripts/check-layers.py), and docs/architecture.md draws it.
// layer 0 system libraries: CCurl CSQLite
// layer 1 vocabulary: PayPulseCoding PayPulsePorts
// layer 2 transport: PayPulseTransport
// layer 3 adapters and domain: PayPulseAWS PayPulseGoogle PayPulseIssuerKeys PayPulseEmbedded PayPulseDomain
// layer 4 runtime: PayPulseRuntime
// layer 5 handlers: PayPulseHandlers
// layer 6 composition root: PayPulseApp
// layer 7 local peers and client: PayPulseFakeGoogle PayPulseResponseMatching PayPulseClient
// layer 8 local server and test support: PayPulseLocalServer PayPulseTestSupport
// layer 9 executables: paypulse store-tokens user-profile token-refresh disconnect fresh-token security-events capacity with-moto
// Test targets may depend on any layer.

import PackageDescription

let package = Package(
    name: "paypulse-gmail-connect",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "paypulse", targets: ["paypulse"]),
        .executable(name: "store-tokens", targets: ["store-tokens"]),
        .executable(name: "user-profile", targets: ["user-profile"]),
        .executable(name: "token-refresh", targets: ["token-refresh"]),
        .executable(name: "disconnect", targets: ["disconnect"]),
        .executable(name: "fresh-token", targets: ["fresh-token"]),
        .executable(name: "security-events", targets: ["security-events"]),
        // The iOS app's client of the API, generated from openapi.yaml (URLSession transport).
        .library(name: "PayPulseClient", targets: ["PayPulseClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        // The local development server only (`paypulse serve`); no function links it. Without
        // its default traits: we use neither swift-configuration nor its URL-encoded forms, and
        // SwiftPM 6.1 orders two traits' defines at random on each plan, so every other
        // command would recompile Hummingbird's modules for nothing.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The generated client's runtime only; the generator is Tools/OpenAPIGenerator's.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
    ],
    targets: [
        // MARK: transport
        // libcurl's headers only: the library is dlopen()ed on first use (see its header).
        .target(
            name: "CCurl",
            path: "Sources/CCurl",
            // dlopen is in glibc's libdl on older Linux; in libSystem on macOS.
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        .target(
            name: "PayPulseTransport",
            dependencies: ["CCurl", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Transport"
        ),

        // MARK: ports
        .target(name: "PayPulsePorts", path: "Sources/Ports"),

        // MARK: wire formats shared by runtime, handlers and domain: JSON values, the strict
        // body parser, the one encoder style, percent decoding
        .target(name: "PayPulseCoding", path: "Sources/Coding"),

        // MARK: adapters
        .target(
            name: "PayPulseAWS",
            dependencies: [
                "PayPulsePorts", "PayPulseTransport", "PayPulseCoding",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Adapters/AWS"
        ),
        .target(
            name: "PayPulseGoogle",
            dependencies: ["PayPulsePorts", "PayPulseTransport", "PayPulseCoding", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Adapters/Google"
        ),
        .target(
            name: "PayPulseIssuerKeys",
            dependencies: ["PayPulsePorts", "PayPulseTransport", "PayPulseCoding", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Adapters/IssuerKeys"
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            // macOS: the SDK's sqlite3 (no pkg-config file needed).
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "PayPulseEmbedded",
            dependencies: ["PayPulsePorts", "CSQLite", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Adapters/Embedded"
        ),

        // MARK: domain
        .target(
            name: "PayPulseDomain",
            dependencies: [
                "PayPulsePorts", "PayPulseCoding",
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA public keys (RS256 under an identity provider's JWKS); nothing else of it.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Domain"
        ),

        // MARK: handlers (pure: request + ports -> response)
        .target(
            name: "PayPulseHandlers",
            dependencies: ["PayPulseCoding", "PayPulseDomain", "PayPulsePorts", "PayPulseRuntime", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Handlers"
        ),

        // MARK: runtime (events in, responses out)
        .target(
            name: "PayPulseRuntime",
            dependencies: ["PayPulseTransport", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Runtime"
        ),

        // MARK: composition root: configuration -> adapters -> handlers -> runtime
        .target(
            name: "PayPulseApp",
            dependencies: [
                "PayPulseRuntime", "PayPulseHandlers", "PayPulseDomain", "PayPulsePorts", "PayPulseAWS",
                "PayPulseEmbedded", "PayPulseTransport", "PayPulseGoogle", "PayPulseIssuerKeys", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/App"
        ),

        // MARK: `paypulse serve`: the functions' handlers behind a local HTTP/1.1 server, with
        // Google's stand-in and a console page. The CLI links it; no function does.
        .target(
            name: "PayPulseLocalServer",
            dependencies: [
                "PayPulseApp", "PayPulseCoding", "PayPulseDomain", "PayPulseEmbedded", "PayPulseFakeGoogle", "PayPulseHandlers",
                "PayPulsePorts", "PayPulseRuntime", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/LocalServer"
        ),

        // MARK: the API's Swift client for the iOS app: Generated/ is swift-openapi-generator's
        // output for openapi.yaml (scripts/generate-client.sh; CI checks it is current).
        .target(
            name: "PayPulseClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Sources/PayPulseClient",
            exclude: ["openapi-generator-config.yaml"]
        ),

        // MARK: executables
        .executableTarget(
            name: "paypulse",
            dependencies: [
                "PayPulseApp", "PayPulsePorts", "PayPulseAWS", "PayPulseEmbedded", "PayPulseDomain",
                "PayPulseTransport", "PayPulseHandlers", "PayPulseRuntime", "PayPulseFakeGoogle", "PayPulseCoding",
                "PayPulseResponseMatching", "PayPulseLocalServer", "PayPulseGoogle", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Executables/paypulse"
        ),
        .executableTarget(
            name: "store-tokens",
            dependencies: ["PayPulseApp"],
            path: "Sources/Executables/store-tokens"
        ),
        .executableTarget(
            name: "user-profile",
            dependencies: ["PayPulseApp"],
            path: "Sources/Executables/user-profile"
        ),
        .executableTarget(
            name: "token-refresh",
            dependencies: ["PayPulseApp"],
            path: "Sources/Executables/token-refresh"
        ),
        .executableTarget(
            name: "disconnect",
            dependencies: ["PayPulseApp"],
            path: "Sources/Executables/disconnect"
        ),
        .executableTarget(
            name: "fresh-token",
            dependencies: ["PayPulseApp"],
            path: "Sources/Executables/fresh-token"
        ),
        .executableTarget(
            name: "security-events",
            dependencies: ["PayPulseApp"],
            path: "Sources/Executables/security-events"
        ),

        // MARK: `make capacity`: the AWS calls each operation makes, counted against moto,
        // combined with the published quotas and prices. A developer tool, never deployed.
        .executableTarget(
            name: "capacity",
            dependencies: [
                "PayPulseApp", "PayPulseAWS", "PayPulseCoding", "PayPulseDomain", "PayPulseHandlers", "PayPulsePorts",
                "PayPulseRuntime", "PayPulseTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Executables/capacity"
        ),

        // MARK: the expected-response rule for events/ (replay tests, `paypulse match-response`)
        .target(name: "PayPulseResponseMatching", path: "Sources/ResponseMatching"),

        // MARK: a local stand-in for Google's OAuth endpoints and RISC management API: the
        // tests' peer, and the developer CLI's (`paypulse demo` runs offline against it).
        // Never in a function. RSA checks the service accounts' tokens and signs the RISC
        // transmitter's events, apart from our signer; the transport pushes those events.
        .target(
            name: "PayPulseFakeGoogle",
            dependencies: [
                "PayPulseTransport", .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/FakeGoogle"
        ),

        // MARK: test support (real peers: moto_server, loopback fakes)
        .target(
            name: "PayPulseTestSupport",
            dependencies: [
                "PayPulseFakeGoogle", "PayPulsePorts", "PayPulseAWS", "PayPulseEmbedded", "PayPulseDomain", "PayPulseTransport",
                "PayPulseHandlers", "PayPulseGoogle", "PayPulseRuntime",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Sources/TestSupport"
        ),

        // MARK: a test tool: runs a command with a moto_server (scripts/with-moto.sh). Never deployed.
        .executableTarget(name: "with-moto", dependencies: ["PayPulseTestSupport"], path: "Sources/Executables/with-moto"),

        // MARK: tests
        .testTarget(
            name: "ClientTests",
            dependencies: [
                "PayPulseClient", "PayPulseEmbedded", "PayPulsePorts", "PayPulseTestSupport",
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "LocalServerTests", dependencies: ["PayPulseLocalServer", "PayPulseFakeGoogle", "PayPulseApp", "PayPulseCoding", "PayPulseDomain", "PayPulseTestSupport"]
        ),
        .testTarget(name: "TransportTests", dependencies: ["PayPulseTransport", "PayPulseTestSupport"]),
        .testTarget(name: "SigV4Tests", dependencies: ["PayPulseAWS"]),
        .testTarget(name: "AWSTests", dependencies: ["PayPulseAWS", "PayPulseTestSupport"]),
        .testTarget(name: "EmbeddedTests", dependencies: ["PayPulseEmbedded", "PayPulseTestSupport"]),
        .testTarget(name: "ContractTests", dependencies: ["PayPulsePorts", "PayPulseTestSupport"]),
        .testTarget(
            name: "ConfigurationTests",
            dependencies: ["PayPulseApp", "PayPulseDomain", "PayPulseRuntime", "PayPulseAWS", "PayPulseHandlers", "PayPulsePorts", "PayPulseTestSupport"]
        ),
        .testTarget(name: "DomainTests", dependencies: ["PayPulseAWS", "PayPulseDomain", "PayPulseTestSupport"]),
        .testTarget(name: "GoogleTests", dependencies: ["PayPulseDomain", "PayPulseGoogle", "PayPulsePorts", "PayPulseTestSupport", "PayPulseTransport"]),
        .testTarget(name: "RefreshTests", dependencies: ["PayPulseAWS", "PayPulseDomain", "PayPulseHandlers", "PayPulsePorts", "PayPulseTestSupport", "PayPulseGoogle", "PayPulseTransport", "PayPulseRuntime",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "PayPulseApp", "PayPulseDomain", "PayPulseHandlers", "PayPulseIssuerKeys", "PayPulsePorts", "PayPulseTestSupport", "PayPulseTransport",
                .product(name: "JWTKit", package: "jwt-kit"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "HandlerTests",
            dependencies: [
                "PayPulseCoding", "PayPulseHandlers", "PayPulseDomain", "PayPulseTestSupport", "PayPulseIssuerKeys", "PayPulseTransport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FaultTests",
            dependencies: [
                "PayPulseTestSupport", "PayPulseHandlers", "PayPulseDomain", "PayPulsePorts", "PayPulseAWS", "PayPulseGoogle",
                "PayPulseIssuerKeys", "PayPulseTransport", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "RuntimeTests", dependencies: ["PayPulseCoding", "PayPulseApp", "PayPulseRuntime", "PayPulseHandlers", "PayPulseTestSupport", "PayPulseTransport", "PayPulseFakeGoogle"]
        ),
        .testTarget(
            name: "ReplayTests",
            dependencies: [
                "PayPulseTestSupport", "PayPulseDomain", "PayPulsePorts", "PayPulseAWS", "PayPulseEmbedded", "PayPulseTransport", "PayPulseResponseMatching", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "SoakTests",
            dependencies: [
                "PayPulseTestSupport", "PayPulseDomain", "PayPulsePorts", "PayPulseAWS", "PayPulseEmbedded", .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: fuzzing (scripts/fuzz.sh; see Fuzz/README.md)
// libFuzzer targets under Fuzz/, declared only when PAYPULSE_FUZZ=1 so normal builds never
// see them. That build (in .build-fuzz) gives our modules coverage and AddressSanitizer;
// dependencies (swift-crypto, swift-log) stay uninstrumented, which keeps it short.
if Context.environment["PAYPULSE_FUZZ"] == "1" {
    func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(
            name: "fuzz-\(name)", dependencies: ["PayPulseFuzzSupport"] + dependencies, path: "Fuzz/\(name)",
            linkerSettings: [.unsafeFlags(["-sanitize=address"])]
        )
    }
    package.targets += [
        .target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .target(name: "PayPulseFuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/Support"),
        fuzzTarget("event-decoder", ["PayPulseRuntime", "PayPulseHandlers", "PayPulseCoding"]),
        fuzzTarget("store-tokens-body", ["PayPulseHandlers", "PayPulseDomain", "PayPulseCoding"]),
        fuzzTarget("jwt-front", [
            "PayPulseDomain", "PayPulsePorts", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        fuzzTarget("aws-error", [
            "PayPulseAWS", "PayPulsePorts", "PayPulseTransport", .product(name: "Logging", package: "swift-log"),
        ]),
    ]
    for target in package.targets where [.executable, .regular].contains(target.type) && target.name != "CLibFuzzer" {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address"])]
    }
}

// Shared settings for every Swift target (the swift-log pattern): Swift 6 mode with
// strict concurrency comes from the tools version; these add the checks we rely on.
for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
