import PayPulseEmbedded
import PayPulsePorts
import Testing

@Suite("One file for users and secrets")
struct SharedFileTests {
    @Test func usersAndSecretsShareOneFileAndSurviveReopening() async throws {
        try await withStateDirectory { directory in
            let user = UserRecord(userID: "u-1", name: "Ada", email: "ada@example.com", createdOn: "2024-11-01T10:00:00Z")
            let version: SecretVersionID
            do {
                let database = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
                let secrets = EmbeddedSecretStore(database: database, logger: quietLogger)
                let users = EmbeddedUserDirectory(database: database, logger: quietLogger)
                version = try await secrets.createSecret(
                    name: "gmail/user/u-1", value: "{}", tags: [:], clientRequestToken: newToken())
                try await users.putUser(user)
            }

            // Fresh connections through the convenience initialisers see both.
            let secrets = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            let users = try EmbeddedUserDirectory(stateDirectory: directory, logger: quietLogger)
            #expect(try await secrets.getSecretValue(name: "gmail/user/u-1", stage: .current).versionID == version)
            #expect(try await users.user(id: "u-1") == user)
        }
    }
}
