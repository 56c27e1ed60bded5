/// Where an identity provider's public signing keys come from: its JWKS document (RFC 7517
/// §5) and, when the source learns it with them, the issuer they belong to; fetched when
/// the domain's cache needs them.
package protocol IssuerKeySource: Sendable {
    /// Fetches the key set the issuer publishes now.
    /// - Throws: ``IssuerKeysUnavailable`` when no usable answer arrived (the issuer is
    ///   unreachable, answered an error, or sent a document too large to be a key set).
    func fetchKeySet() async throws(IssuerKeysUnavailable) -> PublishedKeySet
}

/// One answer of the issuer's key endpoint.
package struct PublishedKeySet: Sendable, Equatable {
    /// The JWKS document, as received.
    package var document: [UInt8]
    /// How long the answer may be cached, in seconds (`Cache-Control: max-age`), if it says.
    package var maxAge: Int?
    /// The issuer a discovery document named beside the keys (RISC: the document, not our
    /// configuration, says who signs); `nil` when the issuer is configured instead.
    package var issuer: String?

    /// Creates an answer.
    package init(document: [UInt8], maxAge: Int?, issuer: String? = nil) {
        self.document = document
        self.maxAge = maxAge
        self.issuer = issuer
    }
}

/// No key set could be fetched: why, for operators (never a token or key).
package struct IssuerKeysUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    package var reason: String

    /// Creates the error.
    package init(reason: String) { self.reason = reason }

    /// `issuer keys unavailable: <reason>`.
    package var description: String { "issuer keys unavailable: \(reason)" }
}
