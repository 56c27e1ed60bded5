import PayPulseAWS
import Testing

@Suite("AWSCredentials")
struct AWSCredentialsTests {
    let credentials = AWSCredentials(
        accessKeyID: "AKIDEXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        sessionToken: "SESSIONTOKENEXAMPLE"
    )

    @Test("descriptions redact the secret key and the session token")
    func descriptionsRedactSecrets() {
        var dumped = ""
        dump(credentials, to: &dumped)
        let texts = [String(describing: credentials), String(reflecting: credentials), "\(credentials)", dumped]
        for text in texts {
            #expect(text.contains("AKIDEXAMPLE"))
            #expect(!text.contains(credentials.secretAccessKey))
            #expect(!text.contains("SESSIONTOKENEXAMPLE"))
            #expect(text.contains("<redacted>"))
        }
    }

    @Test("without a session token the description does not mention one")
    func descriptionWithoutToken() {
        let plain = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret")
        #expect(
            String(describing: plain) == "AWSCredentials(accessKeyID: AKIDEXAMPLE, secretAccessKey: <redacted>)"
        )
    }
}
