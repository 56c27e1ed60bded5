import PayPulsePorts
import Testing

@Suite("Secret version ids")
struct SecretVersionIDTests {
    @Test("a random id is a lowercase version-4 UUID")
    func shape() {
        let id = SecretVersionID.random().rawValue
        let groups = id.split(separator: "-", omittingEmptySubsequences: false)
        #expect(groups.map(\.count) == [8, 4, 4, 4, 12])
        #expect(id.allSatisfy { $0 == "-" || $0.isHexDigit && !$0.isUppercase })
        #expect(groups[2].first == "4")
        #expect(["8", "9", "a", "b"].contains(groups[3].first))
    }

    @Test("random ids do not repeat")
    func unique() {
        let ids = Set((0..<10_000).map { _ in SecretVersionID.random() })
        #expect(ids.count == 10_000)
    }
}
