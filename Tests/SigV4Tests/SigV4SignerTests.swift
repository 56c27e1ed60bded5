import PayPulseAWS
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Behaviour the suite does not cover.
@Suite("SigV4Signer beyond the suite")
struct SigV4SignerTests {
    let signer = SigV4Signer(
        credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret"),
        region: "eu-west-1",
        service: "secretsmanager"
    )
    let request = SigV4Request(
        method: "POST", path: "/",
        headers: [SigV4Header(name: "Host", value: "secretsmanager.eu-west-1.amazonaws.com")],
        body: Array("{}".utf8)
    )

    @Test("X-Amz-Date is UTC and floors to the second", arguments: [
        (0.0, "19700101T000000Z"),
        (1_709_251_199.999, "20240229T235959Z"),  // leap day, just before midnight
        (951_868_800, "20000301T000000Z"),  // the day after a 400-year leap day
        (-0.5, "19691231T235959Z"),
        (4_133_937_600, "21001231T120000Z"),
        (-2_203_977_600, "19000228T000000Z"),
    ] as [(Double, String)])
    func amzDate(epochSeconds: Double, expected: String) {
        let signed = signer.sign(request, date: Date(timeIntervalSince1970: epochSeconds))
        #expect(signed.headersToAdd.first { $0.name == "X-Amz-Date" }?.value == expected)
        #expect(signed.authorization.contains("/\(expected.prefix(8))/eu-west-1/secretsmanager/aws4_request"))
    }

    @Test("signing a signed request again replaces the signer's headers")
    func resigningIsIdempotent() {
        let date = Date(timeIntervalSince1970: 1_440_938_160)
        let first = signer.sign(request, date: date)
        var again = request
        again.headers = first.headers
        let second = signer.sign(again, date: date)
        #expect(second.headers == first.headers)
        #expect(second.signature == first.signature)
    }

    @Test("one signer across days signs as a new signer would each time: its cached key follows the UTC day")
    func keyFollowsTheDay() {
        let fresh = {
            SigV4Signer(credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret"), region: "eu-west-1", service: "secretsmanager")
        }
        let reused = fresh()
        // Twice on one day, then the next day, then back: the key is cached, replaced, replaced again.
        for seconds in [1_440_938_160.0, 1_440_938_161, 1_441_024_560, 1_440_938_162] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(reused.sign(request, date: date).signature == fresh().sign(request, date: date).signature, "\(seconds)")
        }
        #expect(reused.sign(request, date: Date(timeIntervalSince1970: 1_440_938_160)).signature
            != reused.sign(request, date: Date(timeIntervalSince1970: 1_441_024_560)).signature)
    }

    @Test("headers rewritten in transit are sent but not signed")
    func transitHeadersAreNotSigned() {
        var withAgent = request
        withAgent.headers.append(SigV4Header(name: "User-Agent", value: "paypulse/1.0"))
        withAgent.headers.append(SigV4Header(name: "Expect", value: "100-continue"))
        let signed = signer.sign(withAgent, date: Date(timeIntervalSince1970: 1_440_938_160))
        #expect(signed.authorization.contains("SignedHeaders=host;x-amz-date,"))
        #expect(signed.headers.contains(SigV4Header(name: "User-Agent", value: "paypulse/1.0")))
    }

    @Test("the canonical query encodes strictly and gives bare names an empty value")
    func canonicalQuery() {
        var query = request
        query.query = "b=%7e+*&a&a=%2F"
        let lines = signer.sign(query, date: Date(timeIntervalSince1970: 0)).canonicalRequest
            .split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[2] == "a=&a=%2F&b=~%2B%2A")
    }

    @Test("an already-encoded path is encoded again, and an empty path is /")
    func canonicalPath() {
        var encoded = request
        encoded.path = "/a%2Fb/../c d"
        let lines = signer.sign(encoded, date: Date(timeIntervalSince1970: 0)).canonicalRequest
            .split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == "/c%20d")
        encoded.path = "/a%2Fb"
        #expect(signer.sign(encoded, date: Date(timeIntervalSince1970: 0)).canonicalRequest
            .split(separator: "\n")[1] == "/a%252Fb")
        encoded.path = ""
        #expect(signer.sign(encoded, date: Date(timeIntervalSince1970: 0)).canonicalRequest
            .split(separator: "\n")[1] == "/")
    }
}
