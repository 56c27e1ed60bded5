import PayPulseApp
import PayPulseDomain
import PayPulseAWS
import Testing

@Suite("Configuration from the environment")
struct AppConfigurationTests {
    private let awsBasics = ["AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]

    @Test("outside Lambda the default is the embedded store under .paypulse")
    func localDefaults() throws {
        let configuration = try AppConfiguration.fromEnvironment([:])
        #expect(configuration.store == .embedded)
        #expect(configuration.stateDirectory == ".paypulse")
        #expect(configuration.usersTable == "paypulse-users")
        #expect(!configuration.insideLambda)
        #expect(configuration.aws == nil)
    }

    @Test("inside Lambda the default is AWS, with regional endpoints")
    func lambdaDefaults() throws {
        var environment = awsBasics
        environment["AWS_LAMBDA_FUNCTION_NAME"] = "store-tokens"
        let configuration = try AppConfiguration.fromEnvironment(environment)
        #expect(configuration.store == .aws)
        #expect(configuration.insideLambda)
        #expect(configuration.aws?.secretsManagerEndpoint == "https://secretsmanager.eu-west-1.amazonaws.com")
        #expect(configuration.aws?.dynamoDBEndpoint == "https://dynamodb.eu-west-1.amazonaws.com")
        #expect(configuration.aws?.credentials == AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret"))
    }

    @Test("PAYPULSE_STORE overrides; endpoints, region fallback and session token are read")
    func overrides() throws {
        let environment = [
            "PAYPULSE_STORE": "aws", "AWS_DEFAULT_REGION": "us-west-2", "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "s",
            "AWS_SESSION_TOKEN": "t", "AWS_ENDPOINT_URL": "http://127.0.0.1:5000", "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:8000",
            "USERS_TABLE": "custom-users", "PAYPULSE_STATE_DIR": "/tmp/state",
        ]
        let configuration = try AppConfiguration.fromEnvironment(environment)
        #expect(configuration.aws?.region == "us-west-2")
        #expect(configuration.aws?.credentials.sessionToken == "t")
        #expect(configuration.aws?.secretsManagerEndpoint == "http://127.0.0.1:5000")
        #expect(configuration.aws?.dynamoDBEndpoint == "http://127.0.0.1:8000")
        #expect(configuration.usersTable == "custom-users")
        #expect(configuration.stateDirectory == "/tmp/state")
        var local = environment
        local["PAYPULSE_STORE"] = "EMBEDDED"
        #expect(try AppConfiguration.fromEnvironment(local).store == .embedded)
    }

    @Test("PAYPULSE_STORE=dynamodb reads the token table and KMS key; AWS settings as for aws")
    func dynamoDBStore() throws {
        var environment = awsBasics
        environment["PAYPULSE_STORE"] = "dynamodb"
        environment["PAYPULSE_KMS_KEY_ID"] = "alias/paypulse-tokens"
        var configuration = try AppConfiguration.fromEnvironment(environment)
        #expect(configuration.store == .dynamodb)
        #expect(configuration.tokenTable?.table == "paypulse-gmail-tokens")
        #expect(configuration.tokenTable?.kmsKeyID == "alias/paypulse-tokens")
        #expect(configuration.aws?.kmsEndpoint == "https://kms.eu-west-1.amazonaws.com")
        environment["TOKENS_TABLE"] = "custom-tokens"
        environment["AWS_ENDPOINT_URL_KMS"] = "http://127.0.0.1:4566"
        configuration = try AppConfiguration.fromEnvironment(environment)
        #expect(configuration.tokenTable?.table == "custom-tokens")
        #expect(configuration.aws?.kmsEndpoint == "http://127.0.0.1:4566")
        environment["PAYPULSE_STORE"] = "aws"
        #expect(try AppConfiguration.fromEnvironment(environment).tokenTable == nil)
    }

    @Test(
        "a bad value fails at start, naming the variable",
        arguments: [
            (["PAYPULSE_STORE": "dynamo"], "PAYPULSE_STORE"),
            (["PAYPULSE_STORE": "aws", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"], "AWS_REGION"),
            (["PAYPULSE_STORE": "aws", "AWS_REGION": "EU WEST", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"], "AWS_REGION"),
            (["PAYPULSE_STORE": "aws", "AWS_REGION": "us-east-1", "AWS_SECRET_ACCESS_KEY": "s"], "AWS_ACCESS_KEY_ID"),
            (["PAYPULSE_STORE": "aws", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "a"], "AWS_SECRET_ACCESS_KEY"),
            (["PAYPULSE_STORE": "aws", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_ENDPOINT_URL": "localhost:5000"], "AWS_ENDPOINT_URL"),
            (["PAYPULSE_STORE": "aws", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_ENDPOINT_URL_SECRETS_MANAGER": "ftp://x"], "AWS_ENDPOINT_URL_SECRETS_MANAGER"),
            (["USERS_TABLE": "a b"], "USERS_TABLE"),
            (["PAYPULSE_STORE": "dynamodb", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"], "PAYPULSE_KMS_KEY_ID"),
            (["PAYPULSE_STORE": "dynamodb", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "PAYPULSE_KMS_KEY_ID": "k"], "AWS_REGION"),
            (["PAYPULSE_STORE": "dynamodb", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "PAYPULSE_KMS_KEY_ID": "k", "TOKENS_TABLE": "x"], "TOKENS_TABLE"),
            (["PAYPULSE_CA_BUNDLE": "/nonexistent/ca.pem"], "PAYPULSE_CA_BUNDLE"),
        ]
    )
    func badValues(environment: [String: String], variable: String) {
        #expect {
            try AppConfiguration.fromEnvironment(environment)
        } throws: { error in
            (error as? ConfigurationError)?.variable == variable && "\(error)".contains(variable)
        }
    }

    @Test("the service variable wins over AWS_ENDPOINT_URL, which wins over the regional endpoint")
    func endpointPrecedence() throws {
        func endpoints(_ extra: [String: String]) throws -> (String?, String?) {
            let aws = try AppConfiguration.fromEnvironment(awsBasics.merging(["PAYPULSE_STORE": "aws"].merging(extra) { $1 }) { $1 }).aws
            return (aws?.secretsManagerEndpoint, aws?.dynamoDBEndpoint)
        }
        #expect(try endpoints([:]) == ("https://secretsmanager.eu-west-1.amazonaws.com", "https://dynamodb.eu-west-1.amazonaws.com"))
        #expect(try endpoints(["AWS_ENDPOINT_URL": "http://127.0.0.1:5000"]) == ("http://127.0.0.1:5000", "http://127.0.0.1:5000"))
        #expect(try endpoints(["AWS_ENDPOINT_URL": "http://a:1", "AWS_ENDPOINT_URL_SECRETS_MANAGER": "http://b:2"]) == ("http://b:2", "http://a:1"))
        #expect(try endpoints(["AWS_ENDPOINT_URL_DYNAMODB": "http://d:3"]) == ("https://secretsmanager.eu-west-1.amazonaws.com", "http://d:3"))
    }

    @Test("a printed or dumped configuration shows neither the JWT key nor the AWS secret key")
    func noSecretInDescriptions() throws {
        var environment = awsBasics
        environment["PAYPULSE_STORE"] = "aws"
        environment["AWS_SECRET_ACCESS_KEY"] = "aws-secret-value-0123456789"
        environment["PAYPULSE_JWT_SECRET"] = "jwt-secret-value-0123456789-0123456789"
        let configuration = try AppConfiguration.fromEnvironment(environment)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in ["\(configuration)", String(reflecting: configuration), dumped] {
            #expect(!text.contains("aws-secret-value") && !text.contains("jwt-secret-value"))
        }
        #expect(configuration.jwt.secret == "jwt-secret-value-0123456789-0123456789")
    }

    @Test("the error message never prints the secret key")
    func noSecretInErrors() {
        let environment = ["PAYPULSE_STORE": "aws", "AWS_REGION": "bad region", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "very-secret"]
        #expect { try AppConfiguration.fromEnvironment(environment) } throws: { !"\($0)".contains("very-secret") }
    }

    @Test("PAYPULSE_CA_BUNDLE names the CA file for HTTPS; unset keeps libcurl's own")
    func caBundle() throws {
        #expect(try AppConfiguration.fromEnvironment([:]).caBundlePath == nil)
        let readable = #filePath
        #expect(try AppConfiguration.fromEnvironment(["PAYPULSE_CA_BUNDLE": readable]).caBundlePath == readable)
    }
}
