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
