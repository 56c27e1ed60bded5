import Foundation
import PayPulseAWS
import PayPulseTestSupport
import Testing

/// The KMS operations envelope encryption needs, against moto_server.
@Suite("KMS operations against moto_server")
struct KMSOperationsTests {
    @Test("CreateKey, GenerateDataKey and Decrypt round trip under an encryption context")
    func roundTrip() async throws {
        let kms = try await KMSFixture.client()
        let keyID = try await kms.createKey(description: "paypulse test")
        let context = ["user_id": "user-a"]

        let generated = try await kms.generateDataKey(keyID: keyID, context: context)
        #expect(generated.plaintext.byteCount == 32)
        #expect(!generated.wrapped.isEmpty)
        #expect(generated.keyID.hasSuffix(keyID), "KMS answers the key's ARN")

        #expect(try await kms.decrypt(ciphertextBlob: generated.wrapped, context: context) == generated.plaintext)
        #expect(try await kms.decrypt(ciphertextBlob: generated.wrapped, context: context, keyID: generated.keyID) == generated.plaintext)
        let another = try await kms.generateDataKey(keyID: keyID, context: context)
        #expect(another.plaintext != generated.plaintext)
    }

    // moto enforces the encryption context as real KMS does: it is the AES-GCM authenticated
    // data of moto's own blob format, so any other context (or none) fails authentication and
    // moto answers InvalidCiphertextException, the type real KMS answers.
    @Test("Decrypt under another encryption context, or none, is InvalidCiphertextException")
    func otherContextRefused() async throws {
        let kms = try await KMSFixture.client()
        let keyID = try await kms.createKey()
        let generated = try await kms.generateDataKey(keyID: keyID, context: ["user_id": "user-a"])

        for context in [["user_id": "user-b"], [:], ["user_id": "user-a", "extra": "x"]] {
            let refused = await errorType { try await kms.decrypt(ciphertextBlob: generated.wrapped, context: context) }
            #expect(refused == "InvalidCiphertextException", "context \(context)")
        }
        var altered = generated.wrapped
        altered[altered.count - 1] ^= 0x01
        #expect(await errorType { try await kms.decrypt(ciphertextBlob: altered, context: ["user_id": "user-a"]) } == "InvalidCiphertextException")
    }

    @Test("GenerateDataKey under a key that does not exist is NotFoundException")
    func unknownKey() async throws {
        let kms = try await KMSFixture.client()
        let refused = await errorType { try await kms.generateDataKey(keyID: UUID().uuidString.lowercased(), context: ["user_id": "u"]) }
        #expect(refused == "NotFoundException")
    }

    @Test("a data key never prints its bytes")
    func dataKeyRedacted() async throws {
        let kms = try await KMSFixture.client()
        let generated = try await kms.generateDataKey(keyID: try await kms.createKey(), context: ["user_id": "u"])
        #expect(String(describing: generated.plaintext) == "DataKey(32 bytes, redacted)")
        #expect(String(reflecting: generated.plaintext) == "DataKey(32 bytes, redacted)")
        var dumped = ""
        dump(generated, to: &dumped)
        #expect(!dumped.contains("SymmetricKey"))
        #expect(!dumped.contains("bytes:"))
    }
}

/// KMS clients at the shared moto_server.
enum KMSFixture {
    static func client() async throws -> KMSClient {
        KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: try await MotoServer.shared().endpoint))
    }
}
