// libFuzzer target: a store-tokens request body under a Content-Type -> IncomingTokens or
// a 400/413/415 APIError (JSON and form-urlencoded bodies, MediaType, FormURLEncoding,
// PercentDecoding). Input: the Content-Type header value, a newline, the body; an input
// without a newline is a body sent with no Content-Type.
import PayPulseCoding
import PayPulseDomain
import PayPulseFuzzSupport
@testable import PayPulseHandlers

LibFuzzer.run { data, count in
    let input = SplitInput(LibFuzzer.bytes(data, count))
    parseBody(input.rest, contentType: input.firstLine)
    checkPercentDecoding(input.rest)
    return 0
}

/// Parses the body and checks what an accepted body promises the handler.
func parseBody(_ body: [UInt8], contentType: String?) {
    do {
        let tokens = try StoreTokensBody.parse(body: body, contentType: contentType)
        precondition(!tokens.accessToken.isEmpty, "an accepted body has an access token")
        precondition((1...StoreTokensBody.maxExpiresIn).contains(tokens.expiresIn), "expires_in within 1...86400")
        precondition((tokens.scopes?.count ?? 0) <= 50, "at most 50 scopes")
        precondition(body.count <= StoreTokensBody.maxBytes, "a body over 64 KiB is refused")
        for text in [tokens.accessToken, tokens.refreshToken ?? "", tokens.email ?? "", tokens.tokenType] {
            precondition(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "no control characters")
        }
    } catch {
        precondition([400, 413, 415].contains(error.status), "a refused body is a 400, 413 or 415")
    }
}

/// The strict (form) and lenient (query) modes agree wherever the strict one accepts.
func checkPercentDecoding(_ bytes: [UInt8]) {
    for plusAsSpace in [false, true] {
        let lenient = PercentDecoding.decode(bytes, plusAsSpace: plusAsSpace, strict: false)
        precondition(lenient != nil, "lenient decoding never fails")
        if let strict = PercentDecoding.decode(bytes, plusAsSpace: plusAsSpace, strict: true) {
            precondition(strict == lenient, "strict and lenient percent decoding disagree")
        }
    }
}
