import PayPulsePorts

extension APIError {
    /// The answer to a store failure: unavailability is 503 (the caller may retry); a
    /// conflict that kept recurring is 409; anything else is our fault, 500.
    public init(storeError: StoreError) {
        switch storeError {
        case .unavailable: self = .upstreamUnavailable
        case .conflict: self = .conflict
        default: self = .internalError
        }
    }
}
