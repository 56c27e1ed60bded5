/// What became of one event the fake Google's RISC transmitter was asked to send.
package struct FakeGoogleRISCDelivery: Sendable, Equatable {
    /// How it ended.
    package enum Outcome: String, Sendable, Equatable {
        /// The receiver answered 202.
        case delivered
        /// The receiver answered 400: a refused token, which Google does not send again.
        case refused
        /// Every attempt failed (another status, or no answer); the event is lost, as
        /// Google's limited retries lose it after a long outage.
        case gaveUp = "gave_up"
        /// The stream is disabled: nothing sent, nothing kept for later.
        case streamDisabled = "stream_disabled"
        /// The stream does not ask for this event type.
        case notRequested = "not_requested"
        /// No receiver: no stream registered and none given.
        case noReceiver = "no_receiver"
    }

    /// One POST of the token.
    package struct Attempt: Sendable, Equatable {
        /// The receiver's status; `nil` when no answer came.
        package var status: Int?
        /// Why no answer came (the transport's words), when none did.
        package var failure: String?
    }

    /// The token's `jti`, the same for every attempt; `nil` when nothing was signed.
    package var jti: String?
    /// The event's type.
    package var type: FakeGoogleSecurityEvent.EventType
    /// Where it was sent; `nil` when nothing was.
    package var receiver: String?
    /// Each attempt, in order.
    package var attempts: [Attempt]
    /// How it ended.
    package var outcome: Outcome
}
