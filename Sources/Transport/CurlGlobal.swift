import CCurl

/// `curl_global_init` result. A global `let` is initialised exactly once, lazily and
/// thread-safely, on first use: every handle touches it before `curl_easy_init`.
/// `curl_global_cleanup` is never called, since other threads may still use curl.
let curlGlobalInitResult: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))
