#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseEmbedded
import PayPulsePorts
import Testing

@Suite("Embedded listing order")
struct ListingOrderTests {
    @Test("pages list secrets by name, across page boundaries")
    func nameOrder() async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            let names = (0..<23).map { "gmail/user/u\($0 < 10 ? "0" : "")\($0)" }
            for name in names.shuffled() {
                _ = try await store.createSecret(name: name, value: "v", tags: [:], clientRequestToken: SecretVersionID.random().rawValue)
            }
            var seen: [String] = []
            var token: String?
            repeat {
                let page = try await store.listSecrets(namePrefix: "gmail/user/", includePlannedDeletion: false, maxResults: 5, nextToken: token)
                seen += page.secrets.map(\.name)
                token = page.nextToken
            } while token != nil
            #expect(seen == names)
        }
    }
}
