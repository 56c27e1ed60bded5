import PayPulseAWS
import Testing

@Suite("SigV4 header signing against the aws-c-auth suite")
struct SigV4SuiteTests {
    @Test("the suite folder is present and complete")
    func suiteIsPresent() throws {
        // `all()` throws when the folder is missing or short; this names the failure plainly.
        let cases = try SuiteCase.all()
        #expect(cases.count >= SuiteCase.minimumCaseCount)
    }

    @Test("signs like the suite", arguments: try SuiteCase.all())
    func signsLikeTheSuite(_ suiteCase: SuiteCase) throws {
        let context = suiteCase.context
        let signed = context.signer.sign(
            suiteCase.request.sigV4Request, date: try context.date(), options: context.options
        )
        #expect(signed.canonicalRequest == suiteCase.expectedCanonicalRequest)
        #expect(signed.stringToSign == suiteCase.expectedStringToSign)
        #expect(signed.signature == suiteCase.expectedSignature)
        // Exact text, header order included: the suite lists the request's headers, then
        // X-Amz-Security-Token, X-Amz-Date, x-amz-content-sha256, Authorization.
        #expect(suiteCase.request.rendered(headers: signed.headers) == suiteCase.expectedSignedRequest)
        #expect(signed.headers == suiteCase.request.headers + signed.headersToAdd)
        #expect(signed.headersToAdd.last == SigV4Header(name: "Authorization", value: signed.authorization))
    }
}
