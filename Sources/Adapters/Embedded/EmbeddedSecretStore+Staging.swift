import Logging
import PayPulsePorts

extension EmbeddedSecretStore {
    /// Moves `stage` to `moveTo`, removing it from `removeFrom`; with `moveTo` `nil` the stage
    /// is only removed. This is the compare-and-swap Secrets Manager offers.
    /// - Throws: ``StoreError/conflict`` when `removeFrom` does not hold the stage, or when it
    ///   is `nil` while another version than `moveTo` holds it (as AWS, which then requires
    ///   `RemoveFromVersionId`); ``StoreError/notFound`` when the secret or `moveTo` does not
    ///   exist; ``StoreError/scheduledForDeletion``; ``StoreError/invalidRequest`` when both
    ///   versions are `nil` or `AWSCURRENT` would be removed without a new holder.
    public func updateSecretVersionStage(
        name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?
    ) async throws {
        try SecretRules.check(stage: stage)
        guard moveTo != nil || removeFrom != nil else {
            throw StoreError.invalidRequest.with(message: "give moveTo, removeFrom or both")
        }
        if moveTo == nil, stage == .current {
            throw StoreError.invalidRequest.with(message: "AWSCURRENT can be moved, not removed")
        }
        try await write { tables in
            _ = try tables.liveSecret(name)
            let holder = try tables.holder(of: stage, in: name)
            if let removeFrom, holder != removeFrom {
                throw StoreError.conflict.with(message: "version \(removeFrom) of \(name) does not hold \(stage)")
            }
            guard let moveTo else {
                try tables.detach(stage, in: name)
                return
            }
            if removeFrom == nil, let holder, holder != moveTo {
                throw StoreError.conflict.with(message: "\(stage) of \(name) is held by another version")
            }
            guard try tables.version(moveTo, of: name) != nil else {
                throw StoreError.notFound.with(message: "secret \(name) has no version \(moveTo)")
            }
            try tables.attach(stage, to: moveTo, in: name)
            try tables.prune(name)
        }
        logger.debug(
            "secret stage moved",
            metadata: [
                "secret": "\(name)", "stage": "\(stage)",
                "from": "\(removeFrom?.rawValue ?? "-")", "to": "\(moveTo?.rawValue ?? "-")",
            ]
        )
    }
}
