import Logging
import PayPulseEmbedded
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("Secret values never reach the log")
struct LoggingTests {
    @Test func noLogLineCarriesASecretValue() async throws {
        try await withStateDirectory { directory in
            let capture = LogCapture()
            let logger = capture.logger
            let database = try EmbeddedDatabase(stateDirectory: directory, logger: logger)
            let store = EmbeddedSecretStore(database: database, logger: logger)
            let values = ["ya29.first-access-token", "1//refresh-token-two", "ya29.third", "ya29.fourth"]

            let first = try await store.createSecret(name: "gmail/user/u1", value: values[0], tags: [:], clientRequestToken: newToken())
            let second = try await store.putSecretValue(name: "gmail/user/u1", value: values[1], clientRequestToken: newToken())
            _ = try await store.replaceCurrent(name: "gmail/user/u1", expected: second, value: values[2])
            await expectStoreError(.conflict) {
                try await store.replaceCurrent(name: "gmail/user/u1", expected: first, value: values[3])
            }
            _ = try await store.getSecretValue(name: "gmail/user/u1", stage: .current)

            let lines = capture.lines
            #expect(lines.contains { $0.contains("gmail/user/u1") }, "the store logs names at debug level")
            for line in lines {
                for value in values { #expect(!line.contains(value), "\(line)") }
            }
        }
    }
}
