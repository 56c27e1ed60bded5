/// Why a token set could not be sealed or opened. Descriptions name what failed and never
/// hold key bytes, plaintext or ciphertext.
///
/// A struct over a private code (see ``StoreError``): cases can be added without breaking
/// callers that compare with the static members.
package struct EnvelopeError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case tampered
        case wrongUser
        case kmsRefused(String)
    }

    private let code: Code
    /// Whether trying again later can help (KMS throttled or failed on its side).
    package let isRetryable: Bool

    private init(_ code: Code, retryable: Bool = false) {
        self.code = code
        self.isRetryable = retryable
    }

    /// The ciphertext, its nonce or tag, or the user it is bound to was altered: AES-GCM's
    /// check failed, or the ciphertext is too short to hold a nonce and a tag.
    package static let tampered = EnvelopeError(.tampered)

    /// KMS would not unwrap the data key under this user's encryption context: the item was
    /// sealed for another user (or its wrapped key was altered; KMS cannot tell the two apart).
    package static let wrongUser = EnvelopeError(.wrongUser)

    /// KMS refused for another reason, named by its error type (e.g. `AccessDeniedException`,
    /// `DisabledException`, `ThrottlingException`).
    package static func kmsRefused(_ type: String, retryable: Bool = false) -> EnvelopeError {
        EnvelopeError(.kmsRefused(type), retryable: retryable)
    }

    /// The KMS error type of ``kmsRefused(_:retryable:)``, else `nil`.
    package var kmsErrorType: String? { if case .kmsRefused(let type) = code { type } else { nil } }

    package var description: String {
        switch code {
        case .tampered: "envelope tampered: the ciphertext does not authenticate for this user"
        case .wrongUser: "envelope not for this user: KMS will not unwrap its data key under this user's encryption context"
        case .kmsRefused(let type): "KMS refused: \(type)"
        }
    }

    /// Equality by code only, so `error == .kmsRefused("AccessDeniedException")` holds whatever the retry hint.
    package static func == (lhs: EnvelopeError, rhs: EnvelopeError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension EnvelopeError {
    /// A KMS failure as an envelope error; anything that is not an ``AWSError`` (no answer, an
    /// unreadable one) passes through, as it holds no key material either.
    static func mapping(_ error: any Error) -> any Error {
        guard let error = error as? AWSError else { return error }
        // Real KMS and moto both answer InvalidCiphertextException when the context differs.
        if error.type == "InvalidCiphertextException" { return EnvelopeError.wrongUser }
        return EnvelopeError.kmsRefused(error.type, retryable: error.isRetryable)
    }
}
