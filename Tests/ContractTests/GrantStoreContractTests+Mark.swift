import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A mark for a version that is no longer current: it must never leave a newer value with
/// the attributes of an older one where the store can prevent it.
extension GrantStoreContractTests {
    @Test(arguments: StoreFactory.allGrantStores)
    func markForAnOlderVersion(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = GrantScope().user("stale-mark")
            let first = try await stores.grants.create(user, value: "1", attributes: ["status": "revoked"])
            let second = try await stores.grants.replace(user, expected: first, value: "2", attributes: ["status": "active"])

            if stores.grants.writesAttributesWithValue {
                // Conditioned on the version: refused, the newer value keeps its own attributes.
                await expectStoreError(.conflict) { try await stores.grants.mark(user, attributes: ["status": "revoked"], expected: first) }
                #expect(try await stores.grants.state(of: user).attributes == ["status": "active"])
            } else {
                // Tags cannot be conditioned: written anyway, for the caller to check after.
                try await stores.grants.mark(user, attributes: ["status": "revoked"], expected: first)
                #expect(try await stores.grants.state(of: user).attributes == ["status": "revoked"])
            }
            // For the current version, every store marks.
            try await stores.grants.mark(user, attributes: ["status": "repaired"], expected: second)
            #expect(try await stores.grants.state(of: user).attributes == ["status": "repaired"])
            #expect(try await stores.grants.read(user).value == "2")
        }
    }
}
