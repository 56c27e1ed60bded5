#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

/// The raw SAM CLI samples committed under `events/samples/`, read from the checkout.
enum Samples {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("events/samples")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// A sample as an editable JSON object, for variants (authorizers, stages, bodies).
    static func object(_ name: String) throws -> [String: JSONValue] {
        try #require(try JSONValue.parse(bytes(name)).objectValue)
    }
}

extension [String: JSONValue] {
    /// Sets the value at a dotted path of object keys, creating objects on the way.
    mutating func set(_ path: String, _ value: JSONValue) {
        var keys = path.split(separator: ".").map(String.init)
        let first = keys.removeFirst()
        if keys.isEmpty {
            self[first] = value
        } else {
            var child = self[first]?.objectValue ?? [:]
            child.set(keys.joined(separator: "."), value)
            self[first] = .object(child)
        }
    }

    var bytes: [UInt8] { JSONValue.object(self).jsonBytes }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
