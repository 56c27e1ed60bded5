import CCurl
import Dispatch

/// One libcurl easy handle. It keeps its connection cache across transfers, which is how
/// connections are reused; the pool hands it to one transfer at a time, which runs on the
/// handle's own serial queue.
final class CurlEasyHandle: @unchecked Sendable {
    private let raw: UnsafeMutableRawPointer
    /// Where this handle's blocking transfers run.
    let queue = DispatchQueue(label: "paypulse.curl.transfer")

    init?() {
        guard let handle = paypulse_curl_easy_init() else { return nil }
        raw = handle
    }

    deinit { paypulse_curl_easy_cleanup(raw) }

    /// Runs one blocking transfer. Call only off the Swift concurrency pool.
    func perform(_ request: HTTPRequest, configuration: CurlHTTPClient.Configuration) -> Result<HTTPResponse, TransportError> {
        // Reset drops the previous transfer's options but keeps live connections and caches.
        paypulse_curl_easy_reset(raw)
        let sink = ResponseSink(limit: configuration.maxResponseBytes)
        let sinkPointer = Unmanaged.passRetained(sink)
        defer { sinkPointer.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { paypulse_curl_slist_free_all(headerList) }
        for field in request.headers {
            headerList = paypulse_curl_slist_append(headerList, "\(field.name): \(field.value)")
        }
        // No `Expect: 100-continue` round trip, and no default form content type.
        headerList = paypulse_curl_slist_append(headerList, "Expect:")
        if !request.headers.contains(name: "Content-Type") {
            headerList = paypulse_curl_slist_append(headerList, "Content-Type:")
        }

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            var setup = CURLE_OK
            func set(_ result: CURLcode) { if setup == CURLE_OK { setup = result } }
            set(paypulse_curl_setopt_string(raw, CURLOPT_URL, request.url))
            set(paypulse_curl_setopt_string(raw, CURLOPT_PROTOCOLS_STR, "http,https"))
            set(paypulse_curl_setopt_long(raw, CURLOPT_NOSIGNAL, 1))
            set(paypulse_curl_setopt_long(raw, CURLOPT_SSL_VERIFYPEER, 1))
            set(paypulse_curl_setopt_long(raw, CURLOPT_SSL_VERIFYHOST, 2))
            if let caBundlePath = configuration.caBundlePath {
                set(paypulse_curl_setopt_string(raw, CURLOPT_CAINFO, caBundlePath))
            }
            set(paypulse_curl_setopt_long(raw, CURLOPT_FOLLOWLOCATION, 0))
            set(paypulse_curl_setopt_long(raw, CURLOPT_TCP_KEEPALIVE, 1))
            // Options stick to a pooled handle: set it either way.
            set(paypulse_curl_setopt_long(raw, CURLOPT_FRESH_CONNECT, request.freshConnection ? 1 : 0))
            set(paypulse_curl_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.milliseconds))
            set(paypulse_curl_setopt_long(raw, CURLOPT_TIMEOUT_MS, request.timeout?.milliseconds ?? 0))
            set(paypulse_curl_setopt_offset(raw, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxResponseBytes)))
            set(paypulse_curl_setopt_pointer(raw, CURLOPT_ERRORBUFFER, buffer.baseAddress))
            set(paypulse_curl_setopt_slist(raw, CURLOPT_HTTPHEADER, headerList))
            set(paypulse_curl_setopt_write_callback(raw, CURLOPT_WRITEFUNCTION, curlWriteBody))
            set(paypulse_curl_setopt_pointer(raw, CURLOPT_WRITEDATA, sinkPointer.toOpaque()))
            set(paypulse_curl_setopt_write_callback(raw, CURLOPT_HEADERFUNCTION, curlWriteHeader))
            set(paypulse_curl_setopt_pointer(raw, CURLOPT_HEADERDATA, sinkPointer.toOpaque()))
            set(configureMethod(request))
            guard setup == CURLE_OK else { return setup }
            return paypulse_curl_easy_perform(raw)
        }

        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(.from(curlCode: code, detail: detail, exceededLimit: sink.exceededLimit))
        }
        var status = 0
        _ = paypulse_curl_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPResponse(status: status, headers: sink.headers, body: sink.body))
    }

    private func configureMethod(_ request: HTTPRequest) -> CURLcode {
        let method = request.method.uppercased()
        switch method {
        case "GET" where request.body.isEmpty:
            return paypulse_curl_setopt_long(raw, CURLOPT_HTTPGET, 1)
        case "HEAD":
            return paypulse_curl_setopt_long(raw, CURLOPT_NOBODY, 1)
        default:
            var result = CURLE_OK
            if method == "POST" || !request.body.isEmpty {
                // COPYPOSTFIELDS copies the bytes, so the body need not outlive this call;
                // the size must be set first for bodies that may contain NUL bytes.
                result = paypulse_curl_setopt_offset(raw, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
                if result == CURLE_OK {
                    result = request.body.isEmpty
                        ? paypulse_curl_setopt_string(raw, CURLOPT_COPYPOSTFIELDS, "")
                        : request.body.withUnsafeBytes { bytes in
                            paypulse_curl_setopt_pointer(raw, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                        }
                }
            }
            if result == CURLE_OK, method != "POST" {
                result = paypulse_curl_setopt_string(raw, CURLOPT_CUSTOMREQUEST, method)
            }
            return result
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a tiny positive limit never becomes "no limit".
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(millis, 1))
    }
}

/// Collects one transfer's status line, headers and body from libcurl's callbacks,
/// enforcing the response size cap as bytes arrive.
final class ResponseSink {
    private let limit: Int
    private(set) var body: [UInt8] = []
    private(set) var headers = HTTPHeaders()
    private(set) var exceededLimit = false

    init(limit: Int) { self.limit = limit }

    /// Appends body bytes; returns false (abort the transfer) once the cap is passed.
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= limit else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Takes one raw header line. A status line starts a new header block, so only the
    /// final response's headers remain after interim (`100 Continue`) responses. Works on
    /// the bytes: going through `Character`s cost more than the rest of the transfer.
    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        if bytes.starts(with: Self.statusLinePrefix) {
            headers = HTTPHeaders()
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        var start = colon + 1, end = bytes.count
        while start < end, Self.isWhitespace(bytes[start]) { start += 1 }
        while end > start, Self.isWhitespace(bytes[end - 1]) { end -= 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<colon]), as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        headers.add(name: name, value: value)
    }

    private static let statusLinePrefix = Array("HTTP/".utf8)

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }
}

extension Substring {
    /// Drops leading and trailing characters in `set`, without Foundation.
    func trimmed(of set: String) -> String {
        var slice = self[...]
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

// libcurl's C callbacks: `userdata` is the transfer's `ResponseSink`, retained by the caller.

func curlWriteBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
) -> Int {
    guard let userdata else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    return sink.appendBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

func curlWriteHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
) -> Int {
    guard let userdata else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    sink.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}
