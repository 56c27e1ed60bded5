#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulsePorts

/// Verifies the Security Event Tokens Google's Cross-Account Protection (RISC) POSTs to us,
/// as Google's guide says, and reads their events.
///
/// - Keys and issuer come from the RISC discovery document (the key source's
///   ``PayPulsePorts/PublishedKeySet/issuer``), held as the ``Authenticator`` holds an
///   identity provider's keys: for their lifetime, fetched again at most once a minute for
///   an unknown `kid`, kept through an outage.
/// - The header must be RS256 under the key its `kid` names (``TokenHeaderPolicy`` with
///   ``TokenHeaderPolicy/Rule/securityEvent``); nothing of the payload is read before the
///   signature holds, and our client IDs are asked for only then.
/// - `iss` must be the discovery document's issuer, a trailing slash aside on either side
///   (Google's examples carry one, its live document none); `aud` one of our client IDs;
///   `iat` present and not ahead of now by more than the Authenticator's leeway; `jti`
///   present. `exp` is not checked: these tokens describe past events. No `typ` is required.
/// - A valid token may carry an unknown event type or a subject this receiver cannot read
///   (``SecurityEventSubject/unreadable``); it is still valid and the caller ignores that event.
package struct SecurityEventVerifier: Sendable {
    /// Why a token was not accepted.
    package enum Failure: Error, Sendable, Equatable {
        /// The token is not valid: answer 400 with the rejection's RFC 8935 error object.
        case rejected(SecurityEventRejection)
        /// The token could not be checked (no key set was ever fetched, the discovery
        /// document named no issuer, or our client IDs could not be read): not the sender's
        /// fault, so answer 503 and Google delivers it again. The reason is for operators.
        case unavailable(reason: String)
    }

    /// Tokens over 8 KiB are refused unparsed: Google's are about 1 KiB.
    package static let maximumTokenBytes = 8 * 1024
    /// How far `iat` may be ahead of our clock, in seconds: the ``Authenticator``'s default leeway.
    package static let leeway = AuthSettings.maximumLeeway

    private let keys: IssuerKeyCache
    private let clientIDs: @Sendable () async throws -> [String]

    /// Creates a verifier. Nothing is fetched until the first token arrives.
    /// - Parameters:
    ///   - keys: Where the RISC discovery document and its key set are fetched; its answers
    ///     must name the issuer.
    ///   - clientIDs: Our OAuth client IDs, one of which each token's `aud` must name.
    package init(keys: any IssuerKeySource, clientIDs: @escaping @Sendable () async throws -> [String]) {
        self.keys = IssuerKeyCache(source: keys)
        self.clientIDs = clientIDs
    }

    /// Verifies one token and reads its events.
    /// - Parameters:
    ///   - token: The request body: one compact JWS.
    ///   - now: The current time.
    /// - Returns: The token's `jti`, `iat` and events.
    /// - Throws: ``Failure/rejected(_:)`` for a token that is not valid;
    ///   ``Failure/unavailable(reason:)`` when it could not be checked.
    package func verify(_ token: String, now: Date) async throws(Failure) -> SecurityEventToken {
        guard token.utf8.count <= Self.maximumTokenBytes else { throw .rejected(.tooLarge) }
        // The header before the segments' shape: an unsigned token (`alg: none`, empty
        // signature) is refused for its algorithm, as any other algorithm is.
        let parts = token.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .rejected(.notAJWS) }
        let header = try Self.rejecting(try TokenHeaderPolicy.check(encodedHeader: parts[0], rule: .securityEvent))
        let segments = try Self.rejecting(try BearerToken.segments(of: token))
        guard let signature = Base64URL.decode(segments.signature) else { throw .rejected(.notAJWS) }

        let keySet: IssuerKeySet
        do { keySet = try await keys.keySet(for: header.keyID, now: now) } catch { throw .unavailable(reason: error.description) }
        guard let issuer = keySet.issuer else { throw .unavailable(reason: "the key source named no issuer (not a RISC discovery document)") }
        switch keySet.check(signature: signature, of: segments.signingInput, kid: header.keyID, algorithm: header.algorithm) {
        case .verified: break
        case .unknownKey: throw .rejected(.unknownKey)
        case .algorithmMismatch: throw .rejected(.algorithmNotAllowed)
        case .badSignature: throw .rejected(.badSignature)
        }

        // Nothing of the payload is decoded before its signature holds.
        guard let payload = Base64URL.decode(segments.payload), case .object(let claims)? = try? JSONValue.decode(Array(payload)) else {
            throw .rejected(.malformedClaims)
        }
        return try await check(claims, issuer: issuer, now: now)
    }

    /// The registered claims checked, then the events read.
    private func check(_ claims: [String: JSONValue], issuer: String, now: Date) async throws(Failure) -> SecurityEventToken {
        guard let claimedIssuer = claims["iss"]?.stringValue else { throw .rejected(.missingIssuer) }
        let audience: [String]
        switch claims["aud"] {
        case .string(let single)?: audience = [single]
        default:
            guard let list = try? claims.strings("aud"), !list.isEmpty else { throw .rejected(.missingAudience) }
            audience = list
        }
        guard let issuedAt = try? claims.double("iat") else { throw .rejected(.missingIssuedAt) }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty else { throw .rejected(.missingID) }
        guard case .object(let members)? = claims["events"], !members.isEmpty else { throw .rejected(.noEvents) }

        // iat compared as a number with whole seconds of now, as the Authenticator compares.
        guard issuedAt <= now.timeIntervalSince1970.rounded(.down) + Double(Self.leeway) else { throw .rejected(.issuedInFuture) }
        guard Self.withoutTrailingSlash(claimedIssuer) == Self.withoutTrailingSlash(issuer) else { throw .rejected(.wrongIssuer) }
        let ours: [String]
        do { ours = try await clientIDs() } catch { throw .unavailable(reason: "our OAuth client IDs could not be read: \(error)") }
        guard !ours.isEmpty else { throw .unavailable(reason: "no OAuth client ID is configured") }
        guard audience.contains(where: ours.contains) else { throw .rejected(.wrongAudience) }

        guard let events = SecurityEvent.parse(members) else { throw .rejected(.malformedEvent) }
        return SecurityEventToken(jti: jti, issuedAt: Date(timeIntervalSince1970: issuedAt), events: events)
    }

    /// `value` without one trailing `/`.
    private static func withoutTrailingSlash(_ value: String) -> Substring {
        value.hasSuffix("/") ? value.dropLast() : Substring(value)
    }

    /// Runs a check of the shared JWS front, its ``AuthenticationError`` read as RFC 8935's.
    private static func rejecting<T>(_ check: @autoclosure () throws(AuthenticationError) -> T) throws(Failure) -> T {
        do {
            return try check()
        } catch .algorithmNotAllowed {
            throw .rejected(.algorithmNotAllowed)
        } catch .unexpectedHeaderParameter {
            throw .rejected(.unexpectedHeaderParameter)
        } catch .malformedHeader {
            throw .rejected(.malformedHeader)
        } catch {
            throw .rejected(.notAJWS)
        }
    }
}
