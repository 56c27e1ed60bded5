import Foundation
import PayPulseAWS
import PayPulseTransport

/// Turns on moto_server's signature checks and makes one IAM user with an allow-all policy
/// and an access key, in the free calls that moto allows before checking.
package enum MotoIAM {
    /// Enables checks on `endpoint` (use a private server: this is server-wide) and returns
    /// credentials that pass them.
    package static func enableSignatureChecks(endpoint: String) async throws -> AWSCredentials {
        let transport = CurlHTTPClient()
        let reset = try await transport.execute(HTTPRequest(
            method: "POST", url: endpoint + "/moto-api/reset-auth", headers: ["Content-Type": "text/plain"], body: Array("3".utf8)
        ))
        guard reset.status == 200 else { throw MotoServerError(message: "reset-auth answered \(reset.status)") }

        let bootstrap = AWSCredentials(accessKeyID: "AKIDBOOTSTRAP", secretAccessKey: "bootstrap")
        let user = "paypulse-test"
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        _ = try await call(endpoint, transport, bootstrap, ["Action": "CreateUser", "UserName": user])
        _ = try await call(endpoint, transport, bootstrap, ["Action": "PutUserPolicy", "UserName": user, "PolicyName": "allow-all", "PolicyDocument": policy])
        let created = try await call(endpoint, transport, bootstrap, ["Action": "CreateAccessKey", "UserName": user])
        guard let key = element("AccessKeyId", in: created), let secret = element("SecretAccessKey", in: created) else {
            throw MotoServerError(message: "CreateAccessKey answered no key")
        }
        return AWSCredentials(accessKeyID: key, secretAccessKey: secret)
    }

    /// One IAM Query-protocol call, signed.
    private static func call(_ endpoint: String, _ transport: CurlHTTPClient, _ credentials: AWSCredentials, _ parameters: [String: String]) async throws -> String {
        var form = parameters
        form["Version"] = "2010-05-08"
        let body = Array(form.sorted { $0.key < $1.key }.map { "\(encode($0.key))=\(encode($0.value))" }.joined(separator: "&").utf8)
        let host = String(endpoint.dropFirst("http://".count))
        let contentType = "application/x-www-form-urlencoded; charset=utf-8"
        let signed = SigV4Signer(credentials: credentials, region: "us-east-1", service: "iam").sign(
            SigV4Request(method: "POST", path: "/", query: "", headers: [SigV4Header(name: "Host", value: host), SigV4Header(name: "Content-Type", value: contentType)], body: body),
            date: Date()
        )
        var headers = HTTPHeaders()
        for header in signed.headers where header.name.lowercased() != "host" { headers.add(name: header.name, value: header.value) }
        let response = try await transport.execute(HTTPRequest(method: "POST", url: endpoint + "/", headers: headers, body: body))
        guard response.status == 200 else {
            throw MotoServerError(message: "IAM \(parameters["Action"] ?? "") answered \(response.status)")
        }
        return response.bodyText
    }

    private static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? value
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"), let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else { return nil }
        return String(text[open.upperBound..<close.lowerBound])
    }
}
