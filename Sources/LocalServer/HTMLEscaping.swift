extension String {
    /// The text safe inside HTML element content and double-quoted attribute values.
    ///
    /// Walks Unicode scalars, not `Character`s: a grapheme cluster can hide `<` behind a
    /// prepend or combining scalar (U+0600 then `<` is one cluster that is not `"<"`).
    var htmlEscaped: String {
        var escaped = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
