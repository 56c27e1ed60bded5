import ArgumentParser
import PayPulseApp
import PayPulseAWS
import PayPulseCoding
import PayPulseDomain
import PayPulsePorts

/// `paypulse iam FUNCTION [--store aws|dynamodb]`: the least-privilege IAM policy statements
/// of one function, read from the code (each composition's ``Assembly/reach(of:)`` and the operations the AWS
/// clients declare), with resources as template.yaml names them. `scripts/check_template.py`
/// compares the template's policies with this output.
struct IAMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iam", abstract: "Print a function's least-privilege IAM statements (JSON), read from the code."
    )

    @Argument(help: "The function: \(HandlerName.allCases.map(\.rawValue).joined(separator: ", ")).")
    var function: String

    @Option(help: "The token store the function runs on: aws (Secrets Manager) or dynamodb.")
    var store: String = StoreBackend.aws.rawValue

    func run() throws {
        guard let name = HandlerName(rawValue: function) else {
            throw ValidationError("no function \(function); one of \(HandlerName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let backend = StoreBackend(rawValue: store), backend != .embedded else {
            throw ValidationError("--store must be aws or dynamodb, not \(store)")
        }
        let statements = Assembly.reach(of: name).statements(store: backend).map(Self.json)
        print(JSONValue.object(["Statement": .array(statements)]).prettyText)
    }

    /// One statement as a policy document writes it.
    static func json(_ statement: IAMStatement) -> JSONValue {
        var fields: [String: JSONValue] = [
            "Effect": .string("Allow"), "Action": .array(statement.actions.map(JSONValue.string)),
            "Resource": .string(resource(statement.resource)),
        ]
        if let keys = statement.encryptionContextKeys {
            fields["Condition"] = .object([
                "ForAllValues:StringEquals": .object(["kms:EncryptionContextKeys": .array(keys.map(JSONValue.string))]),
                "Null": .object(Dictionary(uniqueKeysWithValues: keys.map { ("kms:EncryptionContext:\($0)", JSONValue.string("false")) })),
            ])
        }
        return .object(fields)
    }

    /// The resource in template.yaml's terms (its parameters and resources, as `!Sub` text).
    static func resource(_ resource: IAMStatement.Resource) -> String {
        let secret = "arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:"
        // Secrets Manager appends six random characters to a secret's name in its ARN.
        return switch resource {
        case .tokenSets: secret + SecretsManagerGrantStore.prefix + "*"
        case .jwtKeySecret: secret + "${JwtKeySecretName}-??????"
        case .googleClientIDSecret: secret + "${GoogleClientIdSecretName}-??????"
        case .usersTable: "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${Table}"
        case .tokensTable: "${TokensTable.Arn}"
        case .dueIndex: "${TokensTable.Arn}/index/" + DynamoDBGrantStore.dueIndexName
        case .subjectIndex: "${TokensTable.Arn}/index/" + DynamoDBGrantStore.lookupIndexName(.googleSubject)
        case .refreshTokenPrefixIndex: "${TokensTable.Arn}/index/" + DynamoDBGrantStore.lookupIndexName(.refreshTokenPrefix)
        case .refreshTokenHashIndex: "${TokensTable.Arn}/index/" + DynamoDBGrantStore.lookupIndexName(.refreshTokenHash)
        case .securityEventsTable: "${SecurityEventsTable.Arn}"
        case .requestQuotasTable: "${RequestQuotasTable.Arn}"
        case .tokensKey: "${TokensKey.Arn}"
        // The bus the stack creates, or the one its EventBusName parameter names.
        case .eventBus: "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/${LifecycleBusName}"
        case .any: "*"
        }
    }
}
