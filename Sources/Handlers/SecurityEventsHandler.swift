#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseCoding
import PayPulseDomain
import PayPulsePorts
import PayPulseRuntime

/// `POST /v1/google/security-events`: Google's Cross-Account Protection (RISC) receiver
/// (RFC 8935 push delivery). The body is one Security Event Token; the token is the
/// credential, so no PayPulse JWT is asked for.
///
/// - A valid token is 202, also for an event this backend does not act on. Its `jti` is
///   claimed first (``SecurityEventLedger``), then its word on each Google account is
///   recorded (``GoogleAccountEvents/remember(_:issuedAt:)``) before its events are applied
///   to the account's grants (``GoogleAccountEvents``). A copy delivered while another acts
///   on it is 503: Google delivers it again, and it is 202 once the event is recorded.
/// - An invalid one is 400 with RFC 8935's `{"err", "description"}`: Google does not
///   deliver it again.
/// - Google's keys out of reach, or the store failing while acting, is 503 with nothing
///   recorded in the ledger (grants changed before the failure stay changed): Google
///   delivers the event again, and applying it again undoes nothing.
package struct SecurityEventsHandler: APIRouteHandler {
    /// How long an acted-on event's `jti` is remembered: longer than Google keeps
    /// redelivering an event it did not see accepted.
    package static let rememberedFor: TimeInterval = 30 * 86_400

    /// How long a claim keeps other copies of an event from acting: longer than one
    /// delivery's work, so a receiver that died mid-way is taken over by a later redelivery
    /// (and its account's word by the refresh run meanwhile).
    package static let claimLease: TimeInterval = 300

    let verifier: SecurityEventVerifier
    let events: GoogleAccountEvents
    let ledger: any SecurityEventLedger
    let metrics: any MetricsSink
    let functionName: String
    let now: @Sendable () -> Date

    /// The function name its metric lines carry unless told.
    package static let defaultFunctionName = "security-events"

    /// Creates the handler.
    package init(
        verifier: SecurityEventVerifier, events: GoogleAccountEvents, ledger: any SecurityEventLedger, metrics: any MetricsSink,
        functionName: String = defaultFunctionName, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.verifier = verifier
        self.events = events
        self.ledger = ledger
        self.metrics = metrics
        self.functionName = functionName
        self.now = now
    }

    package func respond(to request: APIRequest, context: InvocationContext) async throws(APIError) -> APIResponse {
        guard request.method == "POST" else { throw .methodNotAllowed(allowed: "POST") }
        var logger = context.logger
        // Google states no content type (RFC 8935 says application/secevent+jwt): the body is
        // read as the token whatever the header says.
        let token: SecurityEventToken
        do {
            // A compact JWS holds no whitespace: spaces and line breaks around it are the
            // transport's, and refusing it for them would be final (a 400 is not delivered again).
            token = try await verifier.verify(String(decoding: request.body, as: UTF8.self)[...].trimmed(of: " \t\r\n"), now: now())
        } catch {
            switch error {
            case .rejected(let rejection):
                logger.notice("security event token refused", metadata: ["err": "\(rejection.err)", "reason": "\(rejection.description)"])
                emit(eventType: "invalid", counts: ["Invalid": 1])
                return Self.refusal(rejection)
            case .unavailable(let reason):
                logger.error("security event not verified: Google's keys or our client IDs are out of reach", metadata: ["reason": "\(reason)"])
                throw .securityEventKeysUnavailable
            }
        }

        logger[metadataKey: "jti"] = "\(token.jti)"
        // One copy acts: a delivery of an event acted on before reads its record (and writes
        // nothing); a second copy delivered while the first acts finds the first's claim and
        // is answered 503, so Google delivers it again until the event is recorded (were the
        // first copy's receiver to die, a 202 here would lose the event).
        let claimant = SecretVersionID.random().rawValue  // the system generator: never two claimants alike
        do {
            if try await ledger.contains(token.jti) {
                logger.info("security event delivered again; acted on before")
                return Self.accepted
            }
            guard try await ledger.claim(token.jti, by: claimant, until: now().addingTimeInterval(Self.claimLease)) else {
                logger.notice("security event delivered again while another copy acts on it; Google delivers it again")
                throw APIError.securityEventInFlight
            }
        } catch let inFlight as APIError {
            throw inFlight
        } catch {
            // The claim may have been written and its answer lost: released, so it does not
            // hold the redelivery off for the whole lease.
            logger.error("the security event ledger cannot be written", metadata: ["error": "\(error)"])
            try? await ledger.release(token.jti, by: claimant)
            throw .upstreamUnavailable
        }
        // Google's word on each account next, before any grant is looked for: a grant the
        // listing cannot show yet, or whose write is in flight, meets it when it is written or
        // at the next refresh run. (After the claim: a copy delivered again records nothing.)
        for event in token.events {
            do {
                try await events.remember(event, issuedAt: token.issuedAt)
            } catch {
                logger.error("Google's word not recorded; Google delivers the event again", metadata: ["event": "\(event.type.uri)", "error": "\(error)"])
                try? await ledger.release(token.jti, by: claimant)
                throw .securityEventUnfinished
            }
        }
        for event in token.events {
            let applied: GoogleAccountEvents.Applied
            do {
                applied = try await events.apply(event, issuedAt: token.issuedAt, logger: logger)
            } catch {
                logger.error("security event not applied; Google delivers it again", metadata: ["event": "\(event.type.uri)", "error": "\(error)"])
                // Released, so the redelivery acts; if this fails too, the lease runs out.
                try? await ledger.release(token.jti, by: claimant)
                throw .securityEventUnfinished
            }
            logger.info("security event received", metadata: [
                "event": "\(event.type.uri)", "grants_changed": "\(applied.changed.count)", "grants_unchanged": "\(applied.unchanged)",
                "grants_stale": "\(applied.stale)",
            ])
            emit(
                eventType: Self.shortName(event.type),
                counts: ["Events": 1, "GrantsChanged": applied.changed.count, "GrantsStale": applied.stale]
            )
        }
        do {
            try await ledger.record(token.jti, events: Self.recorded(token, at: now()), until: now().addingTimeInterval(Self.rememberedFor))
        } catch {
            // Acted on already: a 5xx would only make Google deliver it again. A redelivery
            // then acts again, which changes nothing unless the account changed meanwhile.
            logger.error("security event applied but not recorded", metadata: ["error": "\(error)"])
        }
        return Self.accepted
    }

    /// The token's events as the ledger keeps them for the console: one per Google account named.
    static func recorded(_ token: SecurityEventToken, at time: Date) -> [RecordedSecurityEvent] {
        token.events.compactMap { event in
            guard case .googleAccount(let account) = event.subject else { return nil }
            return RecordedSecurityEvent(type: event.type.uri, subject: account.subject, receivedAt: time)
        }
    }

    /// RFC 8935 §2.3: 202 and no body.
    static let accepted = APIResponse(status: 202, body: "")

    /// RFC 8935 §2.4's error object.
    static func refusal(_ rejection: SecurityEventRejection) -> APIResponse {
        let body = JSONValue.object(["err": .string(rejection.err), "description": .string(rejection.description)]).compactJSON() ?? []
        return APIResponse(status: 400, body: String(decoding: body, as: UTF8.self))
    }

    /// The type's last path segment (`account-disabled`), or `other`, as a metric dimension.
    static func shortName(_ type: SecurityEventType) -> String {
        if case .other = type { return "other" }
        return String(type.uri.split(separator: "/").last ?? "other")
    }

    /// Every `EventType` a metric line carries: each known type's short name, `other`, and
    /// `invalid` for a refused token.
    package static let metricEventTypes = [
        SecurityEventType.sessionsRevoked, .accountDisabled, .accountEnabled, .accountPurged, .accountCredentialChangeRequired,
        .verification, .tokensRevoked, .tokenRevoked,
    ].map(shortName) + ["other", "invalid"]

    /// One Embedded Metric Format line: `counts` under the function and the event type
    /// (`Events`, `GrantsChanged` and `GrantsStale` per event; `Invalid` per refused token).
    package static func metricLine(function: String, eventType: String, counts: [String: Int], timestamp: Date) -> String {
        EmbeddedMetricLine.line(
            namespace: "PayPulse/SecurityEvents", dimensions: [("Function", function), ("EventType", eventType)],
            metrics: counts.keys.sorted().map { EmbeddedMetricLine.Metric($0, Int64(counts[$0] ?? 0)) }, timestamp: timestamp
        )
    }

    private func emit(eventType: String, counts: [String: Int]) {
        metrics.emit(Self.metricLine(function: functionName, eventType: eventType, counts: counts, timestamp: now()))
    }
}
