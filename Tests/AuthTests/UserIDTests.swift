import PayPulseDomain
import PayPulseTestSupport
import Testing

@Suite("UserID")
struct UserIDTests {
    @Test("accepts safe secret-name segments", arguments: [
        "user-1", "a", "A.b", "x_y+z=w@example.com", "0123456789", "...a", "a..", ".a.",
        String(repeating: "u", count: 128),
    ])
    func accepts(_ raw: String) throws {
        let id = try #require(UserID(raw))
        #expect(id.rawValue == raw)
        #expect(id.description == raw)
        #expect(id.secretName == "gmail/user/\(raw)")
    }

    @Test("refuses anything else", arguments: [
        "", ".", "..", "a/b", "/", "../x", "gmail/user/other", "a\u{0}b", "\u{0}", "a b", " a", "a\n",
        "a\\b", "a:b", "a%2Fb", "a*", "é", "ü1", "用户", "١٢٣", "a\u{200B}", "Ａ",
        String(repeating: "u", count: 129), String(repeating: "u", count: 600),
    ])
    func refuses(_ raw: String) {
        #expect(UserID(raw) == nil)
    }
}
