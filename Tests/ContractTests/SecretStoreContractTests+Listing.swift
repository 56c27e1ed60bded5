import Foundation
import PayPulsePorts
import PayPulseTestSupport
import Testing

extension SecretStoreContractTests {
    @Test(arguments: StoreFactory.all)
    func listingPagesThroughEverySecretExactlyOnce(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = Scope()
            // Created out of order; zero-padded so name order is numeric order.
            let names = (0..<25).map { scope.name("secret-\($0 < 10 ? "0" : "")\($0)") }
            for name in names.shuffled() {
                _ = try await stores.secrets.createSecret(name: name, value: "v", tags: ["n": name], clientRequestToken: newToken())
            }

            var seen: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let page = try await stores.secrets.listSecrets(
                    namePrefix: scope.prefix, includePlannedDeletion: false, maxResults: 10, nextToken: token)
                #expect(page.secrets.count <= 10)
                for summary in page.secrets { #expect(summary.tags == ["n": summary.name]) }
                seen += page.secrets.map(\.name)
                token = page.nextToken
                pages += 1
            } while token != nil && pages < 20

            // Secrets Manager promises no order across pages; the embedded store's name
            // order is checked in EmbeddedTests.
            #expect(seen.sorted() == names.sorted())
            #expect(Set(seen).count == seen.count)
            #expect(pages >= 3)
        }
    }

    @Test(arguments: StoreFactory.all)
    func prefixFilterIsCaseSensitive(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = Scope()
            for suffix in ["Alpha", "alpha-1", "alpha-2", "beta"] {
                _ = try await stores.secrets.createSecret(
                    name: scope.name(suffix), value: "v", tags: [:], clientRequestToken: newToken())
            }
            let upper = try await stores.secrets.listAll(prefix: scope.name("A"))
            #expect(upper.map(\.name) == [scope.name("Alpha")])
            let lower = try await stores.secrets.listAll(prefix: scope.name("alpha"))
            #expect(lower.map(\.name).sorted() == [scope.name("alpha-1"), scope.name("alpha-2")])
            let all = try await stores.secrets.listAll(prefix: scope.prefix)
            #expect(all.count == 4)
        }
    }

    /// The refresh job tells due grants from the listing alone: when a value was last
    /// written must be there, set by a create and moved on by a replace. (Whether a tag
    /// change or a stage move alone moves it differs between AWS and moto; nothing relies
    /// on it.)
    @Test(arguments: StoreFactory.all)
    func listingShowsWhenAValueWasLastWritten(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = Scope()
            let name = scope.name("changed")
            let before = Date().addingTimeInterval(-2)
            let first = try await stores.secrets.createSecret(name: name, value: "v1", tags: [:], clientRequestToken: newToken())
            let created = try #require(try await stores.secrets.listAll(prefix: name).first?.lastChangedDate)
            #expect(created >= before && created <= Date().addingTimeInterval(2))
            // Secrets Manager's dates are whole seconds on some paths: wait past the next one.
            try await Task.sleep(for: .milliseconds(1_100))
            _ = try await stores.secrets.replaceCurrent(name: name, expected: first, value: "v2", clientRequestToken: newToken())
            let replaced = try #require(try await stores.secrets.listAll(prefix: name).first?.lastChangedDate)
            #expect(replaced > created)
        }
    }
}
