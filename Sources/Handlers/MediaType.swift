/// A `Content-Type` value split into its essence and its charset parameter.
struct MediaType: Equatable {
    /// `type/subtype`, lowercased; empty when there was no header.
    let essence: String
    /// The `charset` parameter, lowercased and unquoted, if any.
    let charset: String?

    init(_ header: String?) {
        let parts = (header ?? "").split(separator: ";").map { $0.trimmed(of: " \t") }
        essence = parts.first?.lowercased() ?? ""
        charset = parts.dropFirst().compactMap { parameter -> String? in
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmed(of: " \t\"") }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { return nil }
            return pair[1].lowercased()
        }.first
    }
}

extension Substring {
    func trimmed(of set: String) -> String {
        var slice = self
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
