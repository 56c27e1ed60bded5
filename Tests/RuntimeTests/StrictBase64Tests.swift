#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

@Suite("Strict base64")
struct StrictBase64Tests {
    @Test("decodes whatever Foundation encodes, for every length up to 64")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(StrictBase64.decode(Data(bytes).base64EncodedString()) == bytes, "length \(length)")
        }
    }

    @Test("known values")
    func known() {
        #expect(StrictBase64.decode("") == [])
        #expect(StrictBase64.decode("e30=") == "{}".bytes)
        #expect(StrictBase64.decode("ZQ==") == "e".bytes)
        #expect(StrictBase64.decode("+/+/") == [0xFB, 0xFF, 0xBF])
    }

    @Test(
        "refuses what Foundation lets through and other junk",
        arguments: ["e3=0", "ZXhhbXBsZQ===", "e30", "====", "A===", "=AB=", "e30=e30=", "e 30=", "e30-", "e_0=", "ZQ=\n"]
    )
    func refuses(text: String) {
        #expect(StrictBase64.decode(text) == nil)
    }
}
