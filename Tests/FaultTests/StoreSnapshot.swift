import Foundation
import PayPulseAWS
import PayPulsePorts

/// One watched grant or secret exactly as moto holds it, read directly (not through the
/// proxy): whether it exists, its deletion date, tags (a grant's listing attributes), its
/// versions and current value.
///
/// The versions make "unchanged" exact on each store: a secret's version stages (a staged
/// `AWSPENDING` version is a change a reader does not see), a DynamoDB grant's version
/// number (one more on every value write; listing attributes are compared on their own).
///
/// A secret's tags are kept without their version stamp (`paypulse:tags-for`, a version id
/// that differs from run to run): ``stamp`` says instead whether it names the current version.
struct StoreSnapshot: Equatable, CustomStringConvertible {
    /// Whether a secret's tags were written for its current version.
    enum Stamp: String, Equatable {
        case current, stale
    }

    /// The store's own record of versions.
    enum Versions: Equatable {
        /// A secret's version ids and the stages on each.
        case stages([SecretVersionID: [SecretStage]])
        /// A grant's current version as its store numbers it.
        case grant(GrantVersion?)
        /// Not read (a snapshot spelled out by a test, compared normalized only).
        case unknown
    }

    var exists: Bool
    var deletedDate: Date?
    var tags: [String: String]
    var versions: Versions
    var currentValue: String?
    /// A secret's tag stamp against its current version; `nil` where there is none (a
    /// DynamoDB grant, a secret without one).
    var stamp: Stamp? = nil

    static let absent = StoreSnapshot(exists: false, deletedDate: nil, tags: [:], versions: .unknown, currentValue: nil)

    /// A secret through Secrets Manager's own calls.
    static func read(secret name: String, from secrets: any SecretStore) async throws -> StoreSnapshot {
        let description: SecretDescription
        do {
            description = try await secrets.describeSecret(name: name)
        } catch let error as StoreError where error == .notFound {
            return .absent
        }
        var value: String?
        if description.deletedDate == nil {
            value = try await secrets.getSecretValue(name: name, stage: .current).string
        }
        let stamp = description.tags[SecretsManagerGrantStore.versionTag].map { $0 == description.currentVersion?.rawValue ? Stamp.current : .stale }
        return StoreSnapshot(
            exists: true, deletedDate: description.deletedDate, tags: description.tags.filter { $0.key != SecretsManagerGrantStore.versionTag },
            versions: .stages(description.versionStages.mapValues { $0.sorted { $0.rawValue < $1.rawValue } }), currentValue: value, stamp: stamp
        )
    }

    /// A grant through the port (``GrantStore/state(of:)``, then ``GrantStore/read(_:)`` when
    /// it is not deleted), on a store that keeps nothing a reader cannot see but its version.
    static func read(grant user: String, from grants: any GrantStore) async throws -> StoreSnapshot {
        let state: GrantState
        do {
            state = try await grants.state(of: user)
        } catch let error as StoreError where error == .notFound {
            return .absent
        }
        var value: String?
        if !state.isScheduledForDeletion {
            let read = try await grants.read(user)
            // Both reads must see one item: a version moved between them would mix two.
            guard read.version == state.currentVersion else {
                throw SnapshotError(message: "the grant of \(user) changed while the checker read it (nothing else runs then)")
            }
            value = read.value
        }
        return StoreSnapshot(
            exists: true, deletedDate: state.deletionDate, tags: state.attributes, versions: .grant(state.currentVersion), currentValue: value
        )
    }

    /// What a reader sees, with versions dropped and the value's JSON keys sorted;
    /// `normalizeValue` may blank fields that differ legitimately (a fresh access token).
    func normalized(_ normalizeValue: ([String: Any]) -> [String: Any] = { $0 }) -> String {
        var parts = ["exists=\(exists)", "deleted=\(deletedDate != nil)"]
        parts.append("tags=" + tags.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))
        if let stamp { parts.append("stamp=\(stamp.rawValue)") }
        if let currentValue {
            if let object = (try? JSONSerialization.jsonObject(with: Data(currentValue.utf8))) as? [String: Any],
               let data = try? JSONSerialization.data(withJSONObject: normalizeValue(object), options: [.sortedKeys]) {
                parts.append("value=" + String(decoding: data, as: UTF8.self))
            } else {
                parts.append("value=" + currentValue)
            }
        }
        return parts.joined(separator: " ")
    }

    /// For failure messages: token values replaced by their length.
    var description: String {
        let redacted = normalized { object in
            var object = object
            for key in ["access_token", "refresh_token"] {
                if let token = object[key] as? String { object[key] = "<\(token.count) chars>" }
            }
            return object
        }
        switch versions {
        case .stages(let stages):
            let listed = stages.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue.prefix(8)):\($0.value.map(\.rawValue))" }
            return "\(redacted) stages=\(listed)"
        case .grant(let version): return "\(redacted) version=\(version?.rawValue ?? "none")"
        case .unknown: return redacted
        }
    }
}

/// The checker could not take a consistent snapshot.
struct SnapshotError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
