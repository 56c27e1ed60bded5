import PayPulseApp
import Testing

@Suite("paypulse risc's settings: GOOGLE_RISC_API, read by the CLI alone")
struct RISCManagementSettingsTests {
    @Test("Google's API by default; a base of our own without its trailing slash")
    func apiBase() throws {
        #expect(try RISCManagementSettings.fromEnvironment([:]).apiBase == "https://risc.googleapis.com/v1beta")
        #expect(try RISCManagementSettings.fromEnvironment(["GOOGLE_RISC_API": "http://127.0.0.1:8080/risc/v1beta/"]).apiBase == "http://127.0.0.1:8080/risc/v1beta")
    }

    @Test("a base that is not an http(s) URL names the variable")
    func badBase() {
        let error = #expect(throws: ConfigurationError.self) { try RISCManagementSettings.fromEnvironment(["GOOGLE_RISC_API": "risc.googleapis.com"]) }
        #expect(error?.variable == "GOOGLE_RISC_API")
    }

    @Test("no function reads it: it is no variable a deployment sets")
    func notAFunctionSetting() {
        let lambda = ["AWS_LAMBDA_FUNCTION_NAME": "f", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"]
        #expect(!AppConfiguration.variablesRead(lambda).contains("GOOGLE_RISC_API"))
    }
}
