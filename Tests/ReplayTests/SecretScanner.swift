import Foundation
import PayPulseDomain
import PayPulseAWS
import PayPulseTestSupport

/// Looks for credentials in process output: every exact value it was given (tokens, keys,
/// JWT segments, Authorization values) and the shapes no output may show whatever their
/// value (a JWT, a Google access or refresh token, a Bearer value, a SigV4 signature or
/// Authorization header, a hex SHA-256 MAC). Findings name a fingerprint, never the value.
struct SecretScanner {
    /// One leak: where, and a fingerprint of what.
    struct Finding: CustomStringConvertible {
        var source: String
        var what: String
        var description: String { "\(source): \(what)" }
    }

    private(set) var secrets: Set<String> = []

    /// The credential shapes, by name, as regular expressions.
    static let shapes: [(name: String, pattern: String)] = [
        ("a JWT", #"eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}"#),
        ("a Google access token", #"ya29\.[A-Za-z0-9_.-]+"#),
        ("a Google refresh token", #"1//[A-Za-z0-9_-]{4,}"#),
        ("a Bearer value", #"(?i)bearer[ \t]+[A-Za-z0-9._~+/=-]{8,}"#),
        ("a SigV4 Authorization header", #"AWS4-HMAC-SHA256"#),
        ("a SigV4 signature", #"(?i)signature=[0-9a-f]{8,}"#),
        ("a hex SHA-256 (signature or signing key)", #"\b[0-9a-f]{64}\b"#),
        ("an AWS secret key name with a value", #"(?i)aws_secret_access_key\W{1,3}\w"#),
        ("a client secret", #"GOCSPX-[A-Za-z0-9_-]+"#),
    ]

    private let patterns: [(name: String, regex: Regex<AnyRegexOutput>)] = Self.shapes.map { ($0.name, try! Regex($0.pattern)) }

    /// A scanner for runs of these events: their credentials, every replay case's
    /// secrets, the fake Google's grants, the moto secret key and the development JWT key.
    static func forEvents(_ events: [Data]) -> SecretScanner {
        var scanner = SecretScanner()
        for event in events { scanner.addCredentials(ofEvent: event) }
        for replayCase in ReplayManifest.allCases { replayCase.secrets.forEach { scanner.add($0) } }
        ReplayManifest.shared.google_grants.forEach { scanner.add($0.refreshToken) }
        scanner.add(AWSTestClients.motoCredentials.secretAccessKey)
        scanner.add(AuthSettings.developmentKey)
        return scanner
    }

    /// Adds an exact value to look for; values under 8 characters are too common to mean anything.
    mutating func add(_ secret: String) {
        if secret.count >= 8 { secrets.insert(secret) }
    }

    /// Adds an `Authorization` value: the whole value, the token, and each JWT segment.
    mutating func addAuthorization(_ value: String) {
        add(value)
        let token = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).last.map(String.init) ?? value
        add(token)
        for segment in token.split(separator: ".") where segment.count >= 16 { add(String(segment)) }
    }

    /// Adds every credential an event carries: Authorization values and the token fields
    /// of its body (JSON or form, base64 or not).
    mutating func addCredentials(ofEvent bytes: Data) {
        guard let event = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any] else { return }
        let headers = (event["headers"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        let multi = (event["multiValueHeaders"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? [String])?.joined(separator: ",") }
        for (name, value) in headers.merging(multi, uniquingKeysWith: { first, _ in first }) where name.lowercased() == "authorization" {
            addAuthorization(value)
        }
        guard let text = event["body"] as? String else { return }
        let body = event["isBase64Encoded"] as? Bool == true
            ? Data(base64Encoded: text).map { String(decoding: $0, as: UTF8.self) } ?? ""
            : text
        var fields: [String: String] = [:]
        if let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] {
            fields = json.compactMapValues { $0 as? String }
        } else {
            for pair in body.split(separator: "&") {
                let sides = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
                if sides.count == 2 { fields[sides[0]] = sides[1] }
            }
        }
        for name in ["access_token", "refresh_token", "id_token", "client_secret"] {
            if let value = fields[name] { add(value) }
        }
        if let idToken = fields["id_token"] { addAuthorization(idToken) }
    }

    /// The leaks in `text`, each once.
    func findings(in text: String, source: String) -> [Finding] {
        var found: [Finding] = []
        for secret in secrets where text.contains(secret) {
            found.append(Finding(source: source, what: "a known credential (\(Self.fingerprint(secret)))"))
        }
        for (name, regex) in patterns {
            if let match = text.firstMatch(of: regex) {
                found.append(Finding(source: source, what: "\(name) (\(Self.fingerprint(String(text[match.range]))))"))
            }
        }
        return found
    }

    /// Length and FNV-1a hash: enough to find the value again, not enough to use it.
    static func fingerprint(_ secret: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in secret.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return "\(secret.utf8.count) bytes, fnv1a \(String(hash, radix: 16))"
    }
}
