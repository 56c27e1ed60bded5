import PayPulseAWS
import PayPulsePorts
import Testing

@testable import PayPulseAWS

@Suite("AWS error decoding")
struct AWSErrorDecodingTests {
    @Test("__type with a namespace and a lowercase message")
    func jsonNamespaced() {
        let error = AWSError.decode(status: 400, headerType: nil, body: Array("{\"__type\":\"com.amazonaws.secretsmanager#InvalidRequestException\",\"message\":\"marked for deletion\"}".utf8))
        #expect(error.type == "InvalidRequestException")
        #expect(error.message == "marked for deletion")
    }

    @Test("X-Amzn-ErrorType with a suffix, capitalised Message")
    func headerType() {
        let error = AWSError.decode(status: 404, headerType: "ResourceNotFoundException:http://internal.amazon.com/", body: Array("{\"Message\":\"gone\"}".utf8))
        #expect(error.type == "ResourceNotFoundException")
        #expect(error.message == "gone")
    }

    @Test("an XML ErrorResponse body")
    func xmlBody() {
        let error = AWSError.decode(status: 403, headerType: nil, body: Array("<ErrorResponse><Error><Code>InvalidClientTokenId</Code><Message>bad key</Message></Error></ErrorResponse>".utf8))
        #expect(error.type == "InvalidClientTokenId")
        #expect(error.message == "bad key")
        #expect(!error.isRetryable)
    }

    @Test("an empty or HTML body keeps the status and is retryable when 5xx")
    func noBody() {
        let error = AWSError.decode(status: 502, headerType: nil, body: Array("<html>Bad Gateway</html>".utf8))
        #expect(error.type == "UnknownError")
        #expect(error.isRetryable)
        #expect(AWSError.decode(status: 429, headerType: nil, body: []).isThrottling)
    }

    @Test("errors map onto the port's stable codes")
    func mapping() {
        #expect(StoreError(mapping: AWSError(type: "ResourceNotFoundException", message: "", status: 404)) == .notFound)
        #expect(StoreError(mapping: AWSError(type: "ResourceExistsException", message: "", status: 400)) == .alreadyExists)
        #expect(StoreError(mapping: AWSError(type: "InvalidRequestException", message: "You can't perform this operation on the secret because it was marked for deletion.", status: 400)) == .scheduledForDeletion)
        #expect(StoreError(mapping: AWSError(type: "InvalidParameterException", message: "", status: 400), compareAndSwap: true) == .conflict)
        #expect(StoreError(mapping: AWSError(type: "InvalidParameterException", message: "", status: 400)) == .invalidRequest)
        #expect(StoreError(mapping: AWSError(type: "SignatureDoesNotMatch", message: "", status: 403)) == .accessDenied)
        #expect(StoreError(mapping: AWSError(type: "ThrottlingException", message: "", status: 400)) == .unavailable)
    }
}
