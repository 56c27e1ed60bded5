import PayPulseCoding
import PayPulseHandlers

/// What an API Gateway authorizer already verified, as the string map ``APIRequest``
/// carries.
///
/// Values are stringified by ``JSONValue/flattened``: strings as they are, numbers and
/// booleans as JSON writes them (`1700000000`, `true`), arrays and objects as compact JSON
/// text (`["a","b"]`), `null` dropped. Real HTTP APIs already send every JWT claim as a
/// string (arrays as `[a b]`), which passes through untouched; JSON text for arrays keeps
/// hand-written and emulated events lossless and unambiguous.
enum AuthorizerClaims {
    /// Payload 2.0: `authorizer.jwt.claims` (JWT authorizer), else `authorizer.lambda`
    /// (Lambda authorizer context); IAM authorization carries no claims.
    static func v2(_ authorizer: JSONValue?) -> [String: String]? {
        if let claims = authorizer?["jwt"]?["claims"]?.objectValue { return flattened(claims) }
        if let context = authorizer?["lambda"]?.objectValue { return flattened(context) }
        return nil
    }

    /// Payload 1.0: `authorizer.claims` (Cognito user pool), else `authorizer.jwt.claims`
    /// (HTTP API JWT authorizer with payload 1.0), else the authorizer object itself
    /// (Lambda authorizer: `principalId` plus its context), without the
    /// `integrationLatency` API Gateway adds.
    static func v1(_ authorizer: JSONValue?) -> [String: String]? {
        if let claims = authorizer?["claims"]?.objectValue { return flattened(claims) }
        if let claims = authorizer?["jwt"]?["claims"]?.objectValue { return flattened(claims) }
        guard var context = authorizer?.objectValue else { return nil }
        context["integrationLatency"] = nil
        return flattened(context)
    }

    /// `nil` when nothing is left, so "no authorizer" and "empty authorizer" look alike.
    private static func flattened(_ fields: [String: JSONValue]) -> [String: String]? {
        var result: [String: String] = [:]
        for (key, value) in fields {
            if let text = value.flattened { result[key] = text }
        }
        return result.isEmpty ? nil : result
    }
}
