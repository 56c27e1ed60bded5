// The floor of the warm and refresh benchmarks: the CPU a process spends on nothing but the
// HTTP exchanges of one call, with no signing, no JSON and no logic. Each call sends
// prepared requests (from the spec file, `{i}` replaced by the call's number) over blocking
// sockets, reads each answer to its Content-Length, keeps a connection only where the server
// does (moto's development server closes every one; the fake Google keeps them), and counts
// the 5xx answers. Standard library and the platform's C library only, built like the
// functions (-O, static Swift standard library).
//
//   exchanges SPEC CALLS WARMUP   ->   "<CPU µs per call> <user µs> <system µs> <5xx answers>"
//
// SPEC holds, per request: "PORT HEADLEN BODYLEN\n", the head (request line and headers,
// each ending in CRLF, without Content-Length), then the body.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Request {
    let port: UInt16
    let head: [UInt8]
    let body: [UInt8]
}

func fail(_ message: String) -> Never {
    fputs("exchanges: \(message)\n", stderr)
    exit(2)
}

func readSpec(_ path: String) -> [Request] {
    guard let file = fopen(path, "rb") else { fail("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    var requests: [Request] = []
    var at = 0
    while at < bytes.count {
        guard let newline = bytes[at...].firstIndex(of: 10) else { fail("truncated spec") }
        let numbers = String(decoding: bytes[at..<newline], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 3, newline + 1 + numbers[1] + numbers[2] <= bytes.count else { fail("bad spec line") }
        let headStart = newline + 1, bodyStart = headStart + numbers[1]
        requests.append(Request(port: UInt16(numbers[0]), head: Array(bytes[headStart..<bodyStart]),
                                body: Array(bytes[bodyStart..<bodyStart + numbers[2]])))
        at = bodyStart + numbers[2]
    }
    return requests
}

/// `template` with every `{i}` replaced by `number`.
func substitute(_ template: [UInt8], _ number: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(template.count + 8)
    var index = 0
    while index < template.count {
        if template[index] == UInt8(ascii: "{"), index + 2 < template.count, template[index + 1] == UInt8(ascii: "i"),
           template[index + 2] == UInt8(ascii: "}") {
            out += number
            index += 3
        } else {
            out.append(template[index])
            index += 1
        }
    }
    return out
}

func connectLoopback(_ port: UInt16) -> Int32 {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { fail("socket") }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard result == 0 else { fail("connect to port \(port)") }
    return fd
}

/// Sends one request and reads its answer; returns the status and whether the server closes.
func exchange(_ fd: Int32, _ message: [UInt8], _ buffer: inout [UInt8]) -> (status: Int, closes: Bool) {
    var sent = 0
    while sent < message.count {
        let count = message.withUnsafeBytes { write(fd, $0.baseAddress! + sent, message.count - sent) }
        guard count > 0 else { fail("write") }
        sent += count
    }
    var received = 0
    var headEnd = -1
    var total = Int.max
    while received < total {
        if received == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + received, $0.count - received) }
        guard count >= 0 else { fail("read") }
        if count == 0 { break }
        received += count
        if headEnd < 0, let end = headerEnd(buffer, received) {
            headEnd = end
            total = end + contentLength(buffer, end)
        }
    }
    guard headEnd > 12 else { fail("no answer") }
    let status = Int(buffer[9] - 48) * 100 + Int(buffer[10] - 48) * 10 + Int(buffer[11] - 48)
    return (status, headerValue(buffer, headEnd, "connection:").map { asciiLowercased($0) == Array("close".utf8) } ?? false)
}

func headerEnd(_ buffer: [UInt8], _ count: Int) -> Int? {
    guard count >= 4 else { return nil }
    for index in 0...(count - 4) where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13
        && buffer[index + 3] == 10 {
        return index + 4
    }
    return nil
}

func asciiLowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
}

/// The value of the header `name` (lowercase, with its colon) in `buffer[0..<headEnd]`, trimmed.
func headerValue(_ buffer: [UInt8], _ headEnd: Int, _ name: String) -> ArraySlice<UInt8>? {
    let wanted = Array(name.utf8)
    var lineStart = 0
    while lineStart < headEnd {
        var lineEnd = lineStart
        while lineEnd < headEnd, buffer[lineEnd] != 13 { lineEnd += 1 }
        if lineEnd - lineStart > wanted.count, asciiLowercased(buffer[lineStart..<lineStart + wanted.count]) == wanted {
            var valueStart = lineStart + wanted.count
            while valueStart < lineEnd, buffer[valueStart] == 32 { valueStart += 1 }
            return buffer[valueStart..<lineEnd]
        }
        lineStart = lineEnd + 2
    }
    return nil
}

func contentLength(_ buffer: [UInt8], _ headEnd: Int) -> Int {
    guard let value = headerValue(buffer, headEnd, "content-length:") else { return 0 }
    return value.reduce(0) { $0 * 10 + Int($1 - 48) }
}

func cpuMicroseconds() -> (user: Double, system: Double) {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return (Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec),
            Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec))
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let calls = Int(arguments[2]), let warmup = Int(arguments[3]), calls > 0 else {
    fail("usage: exchanges SPEC CALLS WARMUP")
}
let requests = readSpec(arguments[1])
var open: [UInt16: Int32] = [:]
var buffer = [UInt8](repeating: 0, count: 16384)
var serverErrors = 0
var start = cpuMicroseconds()
for call in 0..<(warmup + calls) {
    if call == warmup { start = cpuMicroseconds() }
    let number = Array(String(call).utf8)
    for request in requests {
        let body = substitute(request.body, number)
        let message = substitute(request.head, number) + Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        let fd = open[request.port] ?? connectLoopback(request.port)
        let answer = exchange(fd, message, &buffer)
        if answer.status >= 500 { serverErrors += 1 }
        if answer.closes {
            close(fd)
            open[request.port] = nil
        } else {
            open[request.port] = fd
        }
    }
}
let end = cpuMicroseconds()
let user = (end.user - start.user) / Double(calls), system = (end.system - start.system) / Double(calls)
print("\(user + system) \(user) \(system) \(serverErrors)")
