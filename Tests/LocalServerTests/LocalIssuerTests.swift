import Foundation
import Logging
import PayPulseCoding
import PayPulseDomain
@testable import PayPulseLocalServer
import Testing

/// The local issuer of `paypulse serve --issuer`: the documents it serves, and its keys kept
/// in the state directory for `paypulse jwt --alg`.
@Suite("The local issuer")
struct LocalIssuerTests {
    private let logger = Logger(label: "local-issuer-test")

    private func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("local-issuer-\(UUID().uuidString)").appendingPathComponent("state").path
    }

    private func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("discovery names the issuer, its key set and RS256 / ES256; the key set publishes both public keys under their kids, no private part")
    func documents() throws {
        let issuer = try LocalIssuer.prepare(url: "http://127.0.0.1:8080", stateDirectory: scratch(), insideLambda: false, logger: logger)
        let discovery = try json(try issuer.discoveryDocument())
        #expect(discovery["issuer"] as? String == "http://127.0.0.1:8080")
        #expect(discovery["jwks_uri"] as? String == "http://127.0.0.1:8080/.well-known/jwks.json")
        #expect(discovery["id_token_signing_alg_values_supported"] as? [String] == ["RS256", "ES256"])

        let keys = try #require(try json(try issuer.keySetDocument())["keys"] as? [[String: String]])
        #expect(keys.count == 2)
        let rsa = try #require(keys.first { $0["kty"] == "RSA" }), ec = try #require(keys.first { $0["kty"] == "EC" })
        #expect(rsa["kid"] == issuer.rs256.id && rsa["alg"] == "RS256" && rsa["e"] == "AQAB")
        #expect(ec["kid"] == issuer.es256.id && ec["alg"] == "ES256" && ec["crv"] == "P-256")
        // 2048 bits: 256 bytes, 342 base64url characters.
        #expect(rsa["n"]?.count == 342)
        #expect(issuer.rs256.id != issuer.es256.id)
        for key in keys { #expect(key["d"] == nil && key["p"] == nil && key["use"] == "sig", "\(key.keys.sorted())") }
    }

    @Test("the keys are made once into a 0600 file; a serve on another port keeps them and records its URL for paypulse jwt")
    func keptKeys() throws {
        let state = scratch()
        let first = try LocalIssuer.prepare(url: "http://127.0.0.1:8080", stateDirectory: state, insideLambda: false, logger: logger)
        let path = state + "/" + LocalIssuer.fileName
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: state)[.posixPermissions] as? Int == 0o700)

        let second = try LocalIssuer.prepare(url: "http://127.0.0.1:53124", stateDirectory: state, insideLambda: false, logger: logger)
        #expect(second.rs256.id == first.rs256.id && second.es256.id == first.es256.id, "the same keys")
        let loaded = try LocalIssuer.load(stateDirectory: state, insideLambda: false)
        #expect(loaded.url == "http://127.0.0.1:53124", "the last serve's URL")
        #expect(loaded.es256.id == first.es256.id && loaded.rs256.id == first.rs256.id)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600, "still 0600 after the rewrite")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no temporary file left: \(leftovers)")
    }

    @Test("no file: load says to start serve --issuer and makes none; inside Lambda both are refused; a damaged file is an error, not new keys")
    func refusals() throws {
        let state = scratch()
        #expect(throws: LocalIssuerError.notStarted(path: state + "/" + LocalIssuer.fileName)) {
            try LocalIssuer.load(stateDirectory: state, insideLambda: false)
        }
        #expect(!FileManager.default.fileExists(atPath: state))
        #expect(throws: LocalIssuerError.insideLambda) {
            try LocalIssuer.prepare(url: "http://127.0.0.1:8080", stateDirectory: state, insideLambda: true, logger: logger)
        }
        #expect(!FileManager.default.fileExists(atPath: state), "nothing written inside Lambda")

        _ = try LocalIssuer.prepare(url: "http://127.0.0.1:8080", stateDirectory: state, insideLambda: false, logger: logger)
        #expect(throws: LocalIssuerError.insideLambda) { try LocalIssuer.load(stateDirectory: state, insideLambda: true) }

        let path = state + "/" + LocalIssuer.fileName
        let damaged = Data(#"{"version":1,"issuer":"http://127.0.0.1:8080","rs256_private_key":"x","es256_private_key":"y"}"#.utf8)
        try damaged.write(to: URL(fileURLWithPath: path))
        for attempt in [{ try LocalIssuer.load(stateDirectory: state, insideLambda: false) }, {
            try LocalIssuer.prepare(url: "http://127.0.0.1:8080", stateDirectory: state, insideLambda: false, logger: logger)
        }] {
            let error = try #require(throws: LocalIssuerError.self) { _ = try attempt() }
            guard case .unreadable(let named, _) = error else { Issue.record("\(error)"); continue }
            #expect(named == path)
        }
        #expect(FileManager.default.contents(atPath: path) == damaged, "the file is left for the developer to look at")
    }

    @Test("the state document's bytes: one encoder, one decoder")
    func stateDocumentBytes() throws {
        let document = LocalIssuer.StateDocument(version: 1, issuer: "http://127.0.0.1:8080", rs256PrivateKey: "R", es256PrivateKey: "E")
        let bytes = #"{"es256_private_key":"E","issuer":"http://127.0.0.1:8080","rs256_private_key":"R","version":1}"#
        #expect(String(decoding: try JSONCoding.encode(document), as: UTF8.self) == bytes)
        #expect(try JSONDecoder().decode(LocalIssuer.StateDocument.self, from: Data(bytes.utf8)) == document)
    }
}
