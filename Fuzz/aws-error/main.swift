// libFuzzer target: an AWS answer (status, headers, body) -> AWSError -> StoreError, both
// directly and through AWSSecretStore over a transport that returns the answer (which also
// decodes 2xx bodies into the Secrets Manager shapes). Input: a raw HTTP response head,
// `<Operation> <status>` then header lines, a blank line, the body (see AWSAnswer).
@testable import PayPulseAWS
import PayPulseFuzzSupport
import PayPulsePorts
import PayPulseTransport

LibFuzzer.run { data, count in
    let answer = AWSAnswer(LibFuzzer.bytes(data, count))
    decodeError(answer)
    callStore(answer)
    return 0
}

func decodeError(_ answer: AWSAnswer) {
    let error = AWSError.decode(status: answer.response.status, headerType: answer.response.headers["X-Amzn-ErrorType"], body: answer.response.body)
    precondition(error.status == answer.response.status, "the status is kept")
    precondition(!error.type.contains(":") && !error.type.contains("#"), "the namespace and suffix are stripped")
    precondition(!error.isThrottling || error.isRetryable, "throttling is retryable")
    _ = error.description
    for compareAndSwap in [false, true] {
        let mapped = StoreError(mapping: error, compareAndSwap: compareAndSwap)
        precondition(compareAndSwap || mapped != .conflict, "only a compare-and-swap can conflict")
    }
}

func callStore(_ answer: AWSAnswer) {
    let failure = runBlocking { await answer.callThroughStore() }
    guard let failure else { return }
    precondition(failure is StoreError, "AWSSecretStore throws only StoreError, got \(type(of: failure))")
    if (200..<300).contains(answer.response.status) {
        precondition(failure as? StoreError == .corrupt, "a 2xx answer fails only as unreadable")
    }
}
