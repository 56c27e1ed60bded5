import Foundation
import PayPulsePorts

/// One secret exactly as moto holds it, read directly (not through the proxy): whether it
/// exists, its deletion date, tags, version stages and current value.
struct SecretSnapshot: Equatable, CustomStringConvertible {
    var exists: Bool
    var deletedDate: Date?
    var tags: [String: String]
    var versionStages: [SecretVersionID: [SecretStage]]
    var currentValue: String?

    static func read(_ name: String, from secrets: any SecretStore) async throws -> SecretSnapshot {
        let description: SecretDescription
        do {
            description = try await secrets.describeSecret(name: name)
        } catch let error as StoreError where error == .notFound {
            return SecretSnapshot(exists: false, deletedDate: nil, tags: [:], versionStages: [:], currentValue: nil)
        }
        var value: String?
        if description.deletedDate == nil {
            value = try await secrets.getSecretValue(name: name, stage: .current).string
        }
        return SecretSnapshot(
            exists: true, deletedDate: description.deletedDate, tags: description.tags,
            versionStages: description.versionStages.mapValues { $0.sorted { $0.rawValue < $1.rawValue } }, currentValue: value
        )
    }

    /// What a reader sees, with version ids dropped and the value's JSON keys sorted;
    /// `normalizeValue` may blank fields that differ legitimately (a fresh access token).
    func normalized(_ normalizeValue: ([String: Any]) -> [String: Any] = { $0 }) -> String {
        var parts = ["exists=\(exists)", "deleted=\(deletedDate != nil)"]
        parts.append("tags=" + tags.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))
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
        let stages = versionStages.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue.prefix(8)):\($0.value.map(\.rawValue))" }
        return "\(redacted) stages=\(stages)"
    }
}
