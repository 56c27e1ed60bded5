import Logging
import PayPulsePorts

extension EmbeddedSecretStore {
    /// Lists secrets whose name starts with `namePrefix` (case-sensitive), ordered by name.
    /// - Parameters:
    ///   - namePrefix: The prefix; "" lists everything.
    ///   - includePlannedDeletion: Whether secrets scheduled for deletion are listed.
    ///   - maxResults: The page size, 1 to 100.
    ///   - nextToken: The previous page's ``SecretPage/nextToken``, or `nil` for the first page.
    /// - Throws: ``StoreError/invalidRequest`` for a bad page size or a token this store
    ///   did not issue.
    public func listSecrets(
        namePrefix: String, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?
    ) async throws -> SecretPage {
        try SecretRules.check(maxResults: maxResults)
        let after = try nextToken.map(ListingToken.decode) ?? ""
        return try await read { tables in
            // One row more than the page shows whether another page follows.
            // `name >= prefix` lets the primary key index seek; substr checks the prefix
            // byte for byte (LIKE would ignore case).
            let rows = try tables.connection.query(
                """
                SELECT name, deleted_date,
                  (SELECT max(created_date) FROM secret_versions WHERE secret_name = secrets.name)
                FROM secrets
                WHERE name >= ?1 AND substr(name, 1, length(?1)) = ?1 AND name > ?2
                  AND (?3 OR deleted_date IS NULL)
                  AND (deletion_date IS NULL OR deletion_date > ?4)
                ORDER BY name LIMIT ?5
                """,
                [
                    .text(namePrefix), .text(after), .integer(includePlannedDeletion ? 1 : 0),
                    .real(tables.now), .integer(Int64(maxResults) + 1),
                ]
            ) { row in
                SecretRecord(name: row.text(0), deletedDate: row.optionalReal(1).map(Self.date), lastChangedDate: row.optionalReal(2).map(Self.date))
            }
            let page = rows.prefix(maxResults)
            let secrets = try page.map { record in
                SecretSummary(
                    name: record.name, tags: try tables.tags(of: record.name), lastChangedDate: record.lastChangedDate, deletedDate: record.deletedDate
                )
            }
            let token = rows.count > maxResults ? page.last.map { ListingToken.encode(after: $0.name) } : nil
            return SecretPage(secrets: secrets, nextToken: token)
        }
    }
}
