#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// ``GoogleAccountWords`` in the security-events table (``DynamoDBSecurityEventLedger``'s),
/// beside the `jti`s: a deployment already has it, and every item of it is Google's.
///
/// - `account#<sub>`: one member per kind (`revoked`, `disabled`, `enabled`, `purged`), the
///   latest `iat` in seconds since 1970; each written by a conditional `UpdateItem` that only
///   moves it forward. Read with a consistent `GetItem`.
/// - `spoken#<n>`: the accounts recorded in the ``bucketSeconds``-long span `n`, one member
///   `sub#<sub>` each, so the refresh run reads a few items, not the table.
///
/// Both carry `expires_at`, the table's time to live, ``googleAccountWordsKeptFor`` after the
/// last write. A `jti` (a UUID, or Google's own text) never starts with `account#` or `spoken#`.
package struct DynamoDBGoogleAccountWords: GoogleAccountWords {
    /// What reading and recording call, both on the table.
    package static let readOperations = [DynamoDBClient.getItemOperation]
    /// What recording calls.
    package static let recordOperations = [DynamoDBClient.updateItemOperation]
    /// The span of one `spoken#` item.
    static let bucketSeconds: TimeInterval = 300

    let client: DynamoDBClient
    let table: String
    let now: @Sendable () -> Date

    /// The words in `table` (`SECURITY_EVENTS_TABLE`) through `client`.
    package init(client: DynamoDBClient, table: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.table = table
        self.now = now
    }

    package func word(of subject: String) async throws -> GoogleAccountWord {
        let item = try await StoreError.mapping {
            try await client.getItem(table: table, key: [DynamoDBSecurityEventLedger.jtiAttribute: .string(Self.accountKey(subject))])
        }
        var issued: [GoogleAccountWord.Kind: Date] = [:]
        for kind in GoogleAccountWord.Kind.allCases {
            guard let value = item?[kind.rawValue] else { continue }
            guard case .number(let text) = value, let seconds = Double(text) else {
                throw StoreError.corrupt.with(message: "Google's word on an account has an unreadable \(kind.rawValue)")
            }
            issued[kind] = Date(timeIntervalSince1970: seconds)
        }
        return GoogleAccountWord(issuedAt: issued)
    }

    package func record(_ kind: GoogleAccountWord.Kind, issuedAt: Date, for subject: String) async throws {
        guard !subject.isEmpty else { throw StoreError.invalidRequest.with(message: "an empty Google account") }
        let expires = Int64((now().timeIntervalSince1970 + googleAccountWordsKeptFor).rounded(.up))
        let iat = DynamoDBValue.number(String(issuedAt.timeIntervalSince1970))
        // A state event replaces the other state unless that one is later; any other kind only
        // moves forward.
        var names = ["#kind": kind.rawValue, "#expires": DynamoDBSecurityEventLedger.expiresAtAttribute]
        var update = "SET #kind = :iat, #expires = :expires", condition = "attribute_not_exists(#kind) OR #kind < :iat"
        if let other = kind.otherState {
            names["#other"] = other.rawValue
            update += " REMOVE #other"
            condition = "(attribute_not_exists(#kind) OR #kind <= :iat) AND (attribute_not_exists(#other) OR #other <= :iat)"
        }
        do {
            try await client.updateItem(
                table: table, key: [DynamoDBSecurityEventLedger.jtiAttribute: .string(Self.accountKey(subject))],
                update: update, condition: condition,
                placeholders: DynamoDBExpressionValues(names: names, values: [":iat": iat, ":expires": .integer(expires)])
            )
        } catch let error as AWSError where error.isConditionalCheckFailed {
            // A later event of this kind is kept: nothing to take in. Still noted as spoken of,
            // so a receiver that failed after recording it is finished by the refresh run.
        } catch {
            throw StoreError(mapping: error)
        }
        _ = try await StoreError.mapping {
            try await client.updateItem(
                table: table, key: [DynamoDBSecurityEventLedger.jtiAttribute: .string(Self.spokenKey(Self.bucket(of: now())))],
                update: "SET #subject = :iat, #expires = :expires",
                placeholders: DynamoDBExpressionValues(
                    names: ["#subject": Self.subjectMember + subject, "#expires": DynamoDBSecurityEventLedger.expiresAtAttribute],
                    values: [":iat": iat, ":expires": .integer(expires)]
                )
            )
        }
    }

    package func accounts(spokenOfSince date: Date) async throws -> [String] {
        var accounts: Set<String> = []
        for bucket in Self.bucket(of: date)...max(Self.bucket(of: date), Self.bucket(of: now())) {
            let item = try await StoreError.mapping {
                try await client.getItem(table: table, key: [DynamoDBSecurityEventLedger.jtiAttribute: .string(Self.spokenKey(bucket))])
            }
            for name in (item ?? [:]).keys where name.hasPrefix(Self.subjectMember) {
                accounts.insert(String(name.dropFirst(Self.subjectMember.count)))
            }
        }
        return accounts.sorted()
    }

    static let subjectMember = "sub#"
    static func accountKey(_ subject: String) -> String { "account#" + subject }
    static func spokenKey(_ bucket: Int64) -> String { "spoken#\(bucket)" }
    static func bucket(of date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / bucketSeconds).rounded(.down)) }
}
