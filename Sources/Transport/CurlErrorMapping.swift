import CCurl

extension TransportError {
    /// Classifies a libcurl result code so callers can tell timeouts, refused and reset
    /// connections, DNS and TLS failures apart.
    static func from(curlCode code: CURLcode, detail: String, exceededLimit: Bool) -> TransportError {
        let kind: TransportError
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            kind = .timeout
        case CURLE_COULDNT_CONNECT:
            kind = .connectionRefused
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            kind = .dnsFailure
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_INITFAILED:
            kind = .tlsFailure
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            kind = .connectionReset
        case CURLE_PARTIAL_FILE:
            kind = .truncatedBody
        case CURLE_FILESIZE_EXCEEDED:
            kind = .responseTooLarge
        case CURLE_WRITE_ERROR where exceededLimit:
            kind = .responseTooLarge
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            kind = .invalidURL
        default:
            kind = .other
        }
        let name = String(cString: paypulse_curl_easy_strerror(code))
        return kind.with(detail: detail.isEmpty ? name : "\(name) (\(detail))")
    }
}
