// libcurl, loaded on first use rather than at process start.
//
// Debian's libcurl pulls in about thirty shared libraries (OpenSSL, GnuTLS, Kerberos, LDAP,
// ...) whose symbol relocations were over half of a cold start's instructions, paid even
// by a function that never makes an HTTP call (store-tokens on the embedded store). So no
// binary links libcurl: this module dlopen()s it when a transfer first needs it and calls
// it through function pointers. <curl/curl.h> still provides the types and constants.
//
// The Lambda bundles are the exception: compiled with PAYPULSE_CURL_STATIC, this module
// calls a minimal libcurl linked into the executable (HTTP and HTTPS over a static OpenSSL,
// nothing else: scripts/build-libcurl.sh), whose relocations cost nothing like Debian's
// thirty libraries, and the bundle carries no libcurl. scripts/lambda-build-flags.sh holds
// that build's flags. The functions below behave the same either way.
//
// Every wrapper returns libcurl's own result; when libcurl cannot be loaded, the ones that
// return a code answer CURLE_FAILED_INIT, the others NULL, and paypulse_curl_load_error()
// says why.
#ifndef PAYPULSE_CURL_H
#define PAYPULSE_CURL_H

#include <curl/curl.h>

typedef size_t (*paypulse_curl_write_callback)(char *data, size_t size, size_t count, void *userdata);

/// Loads libcurl (once, thread-safely) and runs curl_global_init(CURL_GLOBAL_ALL).
/// Returns CURLE_OK, or CURLE_FAILED_INIT with paypulse_curl_load_error() set.
CURLcode paypulse_curl_load(void);
/// Why loading failed (dlerror's text, or the global init's code), or NULL.
const char *paypulse_curl_load_error(void);

CURL *paypulse_curl_easy_init(void);
void paypulse_curl_easy_cleanup(CURL *handle);
void paypulse_curl_easy_reset(CURL *handle);
CURLcode paypulse_curl_easy_perform(CURL *handle);
const char *paypulse_curl_easy_strerror(CURLcode code);
struct curl_slist *paypulse_curl_slist_append(struct curl_slist *list, const char *value);
void paypulse_curl_slist_free_all(struct curl_slist *list);

// Typed wrappers for the variadic setters and getters, which Swift cannot call.
CURLcode paypulse_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode paypulse_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode paypulse_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode paypulse_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode paypulse_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode paypulse_curl_setopt_write_callback(CURL *handle, CURLoption option, paypulse_curl_write_callback value);
CURLcode paypulse_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode paypulse_curl_getinfo_double(CURL *handle, CURLINFO info, double *value);

#endif
