#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import Synchronization

/// Signs HTTP requests with AWS Signature Version 4 in the `Authorization` header.
///
/// The signer is a value holding credentials and a scope; it does no I/O, so one instance
/// can sign from many tasks at once. Signing is checked against the aws-c-auth test suite
/// (`Tests/Fixtures/aws-sigv4-test-suite`).
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "secretsmanager")
/// let signed = signer.sign(request, date: Date())
/// send(request, headers: signed.headers)
/// ```
package struct SigV4Signer: Sendable {
    /// The credentials that sign.
    package let credentials: AWSCredentials
    /// The region of the credential scope, e.g. `us-east-1`.
    package let region: String
    /// The signing name of the service, e.g. `secretsmanager` or `dynamodb`.
    package let service: String
    /// Shared by copies of this signer; its scope (credentials, region, service) never changes.
    private let signingKeys = SigningKeyCache()

    /// Creates a signer for one region and service.
    /// - Parameters:
    ///   - credentials: The credentials that sign.
    ///   - region: The region of the credential scope.
    ///   - service: The signing name of the service.
    package init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// Signs a request.
    ///
    /// The signer sets `X-Amz-Date`, `X-Amz-Security-Token` (when the credentials carry a
    /// session token), `x-amz-content-sha256` (when ``SigV4Options/signBody``) and
    /// `Authorization`; same-named headers already in the request are replaced, so signing
    /// a retried request again is safe. Headers that proxies and HTTP stacks rewrite
    /// (`User-Agent`, `Expect`, `Transfer-Encoding`, `X-Amzn-Trace-Id`) are sent but not signed.
    ///
    /// - Parameters:
    ///   - request: The request to sign; its headers must include `Host`.
    ///   - date: The signing time; AWS rejects signatures more than 5 minutes off its clock.
    ///   - options: Service-specific choices.
    /// - Returns: The signing artefacts and the headers to send.
    package func sign(_ request: SigV4Request, date: Date, options: SigV4Options = .init()) -> SignedRequest {
        let amzDate = AMZDate(date)
        let bodyHash = SigV4Encoding.hex(SHA256.hash(data: request.body))

        var added: [SigV4Header] = []
        if let token = credentials.sessionToken {
            added.append(SigV4Header(name: "X-Amz-Security-Token", value: token))
        }
        added.append(SigV4Header(name: "X-Amz-Date", value: amzDate.timestamp))
        if options.signBody {
            added.append(SigV4Header(name: "x-amz-content-sha256", value: bodyHash))
        }

        // A few headers: arrays of lowercased names instead of sets (hashing cost more).
        let replacedNames = added.map { $0.name.lowercased() } + ["authorization"]
        let kept = request.headers.filter { !replacedNames.contains($0.name.lowercased()) }
        let signedInput = (kept + added).filter { header in
            let name = header.name.lowercased()
            if options.omitSessionToken && name == "x-amz-security-token" { return false }
            return !Self.unsignedHeaderNames.contains(name)
        }

        let headers = SigV4Canonicalization.headers(signedInput)
        let canonicalRequest = Self.lines(
            request.method,
            SigV4Canonicalization.uri(path: request.path, normalize: options.normalizePath),
            SigV4Canonicalization.query(request.query),
            headers.canonical,
            headers.signed,
            bodyHash
        )

        let scope = "\(amzDate.day)/\(region)/\(service)/aws4_request"
        let stringToSign = Self.lines(
            Self.algorithm,
            amzDate.timestamp,
            scope,
            SigV4Encoding.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))
        )

        var mac = signingKeys.mac(day: amzDate.day, derive: signingKey(day:))
        mac.update(data: Array(stringToSign.utf8))
        let signature = SigV4Encoding.hex(mac.finalize())
        let authorization = "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(headers.signed), Signature=\(signature)"
        added.append(SigV4Header(name: "Authorization", value: authorization))

        return SignedRequest(
            canonicalRequest: canonicalRequest,
            stringToSign: stringToSign,
            signature: signature,
            authorization: authorization,
            headersToAdd: added,
            headers: kept + added
        )
    }

    static let algorithm = "AWS4-HMAC-SHA256"

    /// The parts joined by newlines, in one string sized up front.
    private static func lines(_ parts: String...) -> String {
        var result = ""
        result.reserveCapacity(parts.reduce(parts.count) { $0 + $1.utf8.count })
        for (index, part) in parts.enumerated() {
            if index > 0 { result += "\n" }
            result += part
        }
        return result
    }

    /// Headers that proxies and HTTP stacks add or rewrite in transit (libcurl may add
    /// `Expect: 100-continue`); signing them would break the signature for no security gain.
    static let unsignedHeaderNames: Set<String> = [
        "expect", "transfer-encoding", "user-agent", "x-amzn-trace-id",
    ]
}

extension SigV4Signer {
    /// The signing key for one day: `"AWS4" + secret` HMAC-chained through the day,
    /// region, service and `aws4_request`. It scopes the secret so a leaked key is only
    /// good for that day, region and service.
    func signingKey(day: String) -> [UInt8] {
        var key = Array("AWS4\(credentials.secretAccessKey)".utf8)
        for part in [day, region, service, "aws4_request"] {
            key = Self.hmac(key: key, Array(part.utf8))
        }
        return key
    }

    /// HMAC-SHA256 of `message` under `key`.
    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }
}

/// The last day's signing key of one signer, kept as an HMAC already keyed with it.
/// Deriving the key takes five HMACs, which were a tenth of a warm invocation's CPU when
/// done for every request, and it only changes when the UTC day does; keying an HMAC (a
/// `SymmetricKey` and the padded key's two blocks) was a quarter of each signature's
/// instructions, so the keyed state is what is kept and copied.
final class SigningKeyCache: Sendable {
    private let entry = Mutex<(day: String, mac: HMAC<SHA256>)?>(nil)

    /// An HMAC keyed with the key for `day`, derived by `derive` only when the cached one
    /// is for another day. A value: each caller updates and finalizes its own copy.
    func mac(day: String, derive: (String) -> [UInt8]) -> HMAC<SHA256> {
        if let cached = entry.withLock({ $0 }), cached.day == day { return cached.mac }
        let mac = HMAC<SHA256>(key: SymmetricKey(data: derive(day)))
        entry.withLock { $0 = (day, mac) }
        return mac
    }
}

/// Choices that differ between AWS services.
package struct SigV4Options: Sendable, Hashable {
    /// Remove `.`/`..` segments and repeated slashes from the path before encoding it.
    /// Every service does this except S3, which signs the path as sent.
    package var normalizePath: Bool
    /// Add and sign an `x-amz-content-sha256` header holding the body hash (S3 needs it).
    package var signBody: Bool
    /// Leave the session token out of the signature but still send it; a few services
    /// (IoT, some STS flows) expect the token to be added after signing.
    package var omitSessionToken: Bool

    /// Creates options; the defaults suit the JSON services (Secrets Manager, DynamoDB).
    /// - Parameters:
    ///   - normalizePath: Normalize the path before encoding it (default `true`).
    ///   - signBody: Add and sign `x-amz-content-sha256` (default `false`).
    ///   - omitSessionToken: Send the session token without signing it (default `false`).
    package init(normalizePath: Bool = true, signBody: Bool = false, omitSessionToken: Bool = false) {
        self.normalizePath = normalizePath
        self.signBody = signBody
        self.omitSessionToken = omitSessionToken
    }
}

/// One HTTP header field, as it is (or will be) sent.
///
/// Headers are kept as an ordered list rather than a dictionary: SigV4 joins repeated
/// names in order of appearance, so both order and duplicates matter.
package struct SigV4Header: Sendable, Hashable {
    /// The field name, in the case it is sent (signing lowercases it).
    package var name: String
    /// The raw field value (signing trims it and collapses whitespace runs).
    package var value: String

    /// Creates a header field.
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The raw field value.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The result of signing: the intermediate artefacts and the headers to send.
///
/// The artefacts are kept because comparing them with the server's is how a
/// `SignatureDoesNotMatch` gets diagnosed (AWS returns its canonical request in the error).
package struct SignedRequest: Sendable, Hashable {
    /// The canonical request that was hashed.
    package var canonicalRequest: String
    /// The string to sign: algorithm, timestamp, credential scope and canonical request hash.
    package var stringToSign: String
    /// The signature as lowercase hex.
    package var signature: String
    /// The value of the `Authorization` header.
    package var authorization: String
    /// The headers the signer adds, in the order it adds them: `X-Amz-Security-Token`
    /// (with a session token), `X-Amz-Date`, `x-amz-content-sha256` (when signing the
    /// body), then `Authorization`.
    package var headersToAdd: [SigV4Header]
    /// The complete header list to send: the request's headers (minus any the signer
    /// replaces) followed by ``headersToAdd``.
    package var headers: [SigV4Header]

    /// Creates a signing result. The signer builds these; the initializer is public for tests.
    package init(
        canonicalRequest: String, stringToSign: String, signature: String,
        authorization: String, headersToAdd: [SigV4Header], headers: [SigV4Header]
    ) {
        self.canonicalRequest = canonicalRequest
        self.stringToSign = stringToSign
        self.signature = signature
        self.authorization = authorization
        self.headersToAdd = headersToAdd
        self.headers = headers
    }
}

/// The parts of an HTTP request that SigV4 signs.
///
/// `path` and `query` are the raw strings of the request target, as they are sent on the
/// wire (split at the first `?`); the signer does its own canonical encoding. The headers
/// must include `Host`.
package struct SigV4Request: Sendable, Hashable {
    /// The HTTP method, e.g. `POST`.
    package var method: String
    /// The raw path of the request target, e.g. `/` or `/a b/c`.
    package var path: String
    /// The raw query string without the leading `?`; empty when there is none.
    package var query: String
    /// The header fields in the order they are sent; duplicates allowed.
    package var headers: [SigV4Header]
    /// The body bytes; empty when there is none.
    package var body: [UInt8]

    /// Creates a request to sign.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The raw path of the request target.
    ///   - query: The raw query string without the leading `?`.
    ///   - headers: The header fields in order; must include `Host`.
    ///   - body: The body bytes.
    package init(
        method: String, path: String, query: String = "",
        headers: [SigV4Header] = [], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// AWS credentials: an access key pair and, for temporary credentials, a session token.
///
/// The textual and reflected forms redact the secret key and the session token, so a
/// credentials value that ends up in a log line or a test failure message leaks nothing.
package struct AWSCredentials: Sendable, Equatable {
    /// The access key id (`AKIA…` or `ASIA…`). Not a secret: it is shown in descriptions.
    package var accessKeyID: String
    /// The secret access key that derives the signing key.
    package var secretAccessKey: String
    /// The session token of temporary credentials (STS, Lambda), if any.
    package var sessionToken: String?

    /// Creates credentials.
    /// - Parameters:
    ///   - accessKeyID: The access key id.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: The session token of temporary credentials, or `nil`.
    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

extension AWSCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A description that names the access key id and redacts the secrets.
    package var description: String {
        let token = sessionToken == nil ? "" : ", sessionToken: <redacted>"
        return "AWSCredentials(accessKeyID: \(accessKeyID), secretAccessKey: <redacted>\(token))"
    }

    /// The same redacted text as ``description``.
    package var debugDescription: String { description }

    /// A mirror with redacted children, so `dump(_:)` does not print the secrets either.
    package var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = [
            ("accessKeyID", accessKeyID),
            ("secretAccessKey", "<redacted>"),
        ]
        if sessionToken != nil { children.append(("sessionToken", "<redacted>")) }
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
