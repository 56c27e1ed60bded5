// Typed wrappers for libcurl's variadic setters and getters, which Swift cannot call.
// One function per argument kind; each returns libcurl's own result code.
#ifndef PAYPULSE_CCURL_SHIM_H
#define PAYPULSE_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*paypulse_curl_write_callback)(char *data, size_t size, size_t count, void *userdata);

static inline CURLcode paypulse_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode paypulse_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode paypulse_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode paypulse_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode paypulse_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode paypulse_curl_setopt_write_callback(CURL *handle, CURLoption option,
                                                           paypulse_curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode paypulse_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode paypulse_curl_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
