/// Why `paypulse serve` could not start; each is one readable line.
package enum LocalServerError: Error, CustomStringConvertible, Equatable {
    /// Something else listens on the address.
    case addressInUse(host: String, port: Int)
    /// The address cannot be listened on (not a local address, no permission).
    case cannotListen(host: String, port: Int, reason: String)

    package var description: String {
        switch self {
        case .addressInUse(let host, let port): "\(host):\(port) is already in use; stop what listens there or choose another --port"
        case .cannotListen(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        }
    }
}
