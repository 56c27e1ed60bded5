// swift-tools-version:6.1
// The generator of Sources/PayPulseClient/Generated (scripts/generate-client.sh), kept out
// of the main package so no build of the backend compiles it: its output is committed, and
// CI regenerates it to check that it is current.
import PackageDescription

let package = Package(
    name: "openapi-generator-tool",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3")],
    targets: []
)
