import Dispatch

/// Runs async code to completion from libFuzzer's synchronous callback.
///
/// `Authenticator.authenticate` and the AWS client are async.
/// The task starts on the calling thread (`Task.immediate`), so work that never suspends,
/// like most malformed inputs, costs no thread hop; otherwise the callback thread waits on
/// a semaphore while the task finishes on the cooperative pool.
package func runBlocking<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
    let box = ResultBox<Result>()
    let done = DispatchSemaphore(value: 0)
    Task.immediate {
        box.value = await body()
        done.signal()
    }
    done.wait()
    guard let value = box.value else { preconditionFailure("the task ended without a result") }
    return value
}

/// Written once by the task, read after the semaphore: the semaphore orders the two.
private final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}
