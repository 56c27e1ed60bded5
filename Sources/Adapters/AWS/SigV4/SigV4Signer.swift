import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs HTTP requests with AWS Signature Version 4 in the `Authorization` header.
///
/// The signer is a value holding credentials and a scope; it does no I/O, so one instance
/// can sign from many tasks at once. Signing is checked against the aws-c-auth test suite
/// (`../shared/aws-sigv4-test-suite`).
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "secretsmanager")
/// let signed = signer.sign(request, date: Date())
/// send(request, headers: signed.headers)
/// ```
public struct SigV4Signer: Sendable {
    /// The credentials that sign.
    public let credentials: AWSCredentials
    /// The region of the credential scope, e.g. `us-east-1`.
    public let region: String
    /// The signing name of the service, e.g. `secretsmanager` or `dynamodb`.
    public let service: String
    /// Shared by copies of this signer; its scope (credentials, region, service) never changes.
    private let signingKeys = SigningKeyCache()

    /// Creates a signer for one region and service.
    /// - Parameters:
    ///   - credentials: The credentials that sign.
    ///   - region: The region of the credential scope.
    ///   - service: The signing name of the service.
    public init(credentials: AWSCredentials, region: String, service: String) {
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
    public func sign(_ request: SigV4Request, date: Date, options: SigV4Options = .init()) -> SignedRequest {
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

        let signature = SigV4Encoding.hex(
            Self.hmac(key: signingKeys.key(day: amzDate.day, derive: signingKey(day:)), Array(stringToSign.utf8))
        )
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
