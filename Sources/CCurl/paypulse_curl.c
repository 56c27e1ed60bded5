// See include/paypulse_curl.h: libcurl through dlopen, loaded on first use; or, compiled
// with PAYPULSE_CURL_STATIC (the Lambda bundles: scripts/lambda-build-flags.sh), libcurl
// linked into the executable and called directly.
#include "paypulse_curl.h"

#include <pthread.h>
#include <stdio.h>
#if !defined(PAYPULSE_CURL_STATIC)
#include <dlfcn.h>
#endif

// libcurl 7.x and 8.x by each platform's name: the soname on Linux (the lambda bundle
// carries it in lib/), the install name of the copy in macOS (/usr/lib, the SDK's).
#if defined(__APPLE__)
#define PAYPULSE_LIBCURL_SONAME "libcurl.4.dylib"
#else
#define PAYPULSE_LIBCURL_SONAME "libcurl.so.4"
#endif

static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static CURLcode load_result = CURLE_FAILED_INIT;
static char load_error[512];

#if defined(PAYPULSE_CURL_STATIC)
// The linked libcurl: the same table, filled with its functions; nothing to load.
static void load(void) {
    api.global_init = curl_global_init;
    api.easy_init = curl_easy_init;
    api.easy_cleanup = curl_easy_cleanup;
    api.easy_reset = curl_easy_reset;
    api.easy_perform = curl_easy_perform;
    api.easy_strerror = curl_easy_strerror;
    api.easy_setopt = curl_easy_setopt;
    api.easy_getinfo = curl_easy_getinfo;
    api.slist_append = curl_slist_append;
    api.slist_free_all = curl_slist_free_all;
    // curl_global_cleanup is never called: other threads may still be using libcurl.
    CURLcode code = curl_global_init(CURL_GLOBAL_ALL);
    if (code != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed: %s", curl_easy_strerror(code));
        return;
    }
    load_result = CURLE_OK;
}
#else
static void *symbol(void *library, const char *name, int *missing) {
    void *address = dlsym(library, name);
    if (address == NULL && *missing == 0) {
        *missing = 1;
        snprintf(load_error, sizeof load_error, "%s has no %s", PAYPULSE_LIBCURL_SONAME, name);
    }
    return address;
}

static void load(void) {
    // RTLD_LOCAL: libcurl's dependencies stay out of the global namespace.
    void *library = dlopen(PAYPULSE_LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load %s: %s", PAYPULSE_LIBCURL_SONAME, reason ? reason : "unknown error");
        return;
    }
    int missing = 0;
    api.global_init = (CURLcode (*)(long))symbol(library, "curl_global_init", &missing);
    api.easy_init = (CURL * (*)(void)) symbol(library, "curl_easy_init", &missing);
    api.easy_cleanup = (void (*)(CURL *))symbol(library, "curl_easy_cleanup", &missing);
    api.easy_reset = (void (*)(CURL *))symbol(library, "curl_easy_reset", &missing);
    api.easy_perform = (CURLcode (*)(CURL *))symbol(library, "curl_easy_perform", &missing);
    api.easy_strerror = (const char *(*)(CURLcode))symbol(library, "curl_easy_strerror", &missing);
    api.easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))symbol(library, "curl_easy_setopt", &missing);
    api.easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))symbol(library, "curl_easy_getinfo", &missing);
    api.slist_append = (struct curl_slist * (*)(struct curl_slist *, const char *)) symbol(library, "curl_slist_append", &missing);
    api.slist_free_all = (void (*)(struct curl_slist *))symbol(library, "curl_slist_free_all", &missing);
    if (missing) return;
    // curl_global_cleanup is never called: other threads may still be using libcurl.
    CURLcode code = api.global_init(CURL_GLOBAL_ALL);
    if (code != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed: %s", api.easy_strerror(code));
        return;
    }
    load_result = CURLE_OK;
}
#endif

CURLcode paypulse_curl_load(void) {
    pthread_once(&load_once, load);
    return load_result;
}

const char *paypulse_curl_load_error(void) {
    pthread_once(&load_once, load);
    return load_result == CURLE_OK ? NULL : load_error;
}

// Callers hold a handle, so libcurl is loaded for everything below except easy_init and
// strerror, which check.
CURL *paypulse_curl_easy_init(void) { return paypulse_curl_load() == CURLE_OK ? api.easy_init() : NULL; }
void paypulse_curl_easy_cleanup(CURL *handle) { api.easy_cleanup(handle); }
void paypulse_curl_easy_reset(CURL *handle) { api.easy_reset(handle); }
CURLcode paypulse_curl_easy_perform(CURL *handle) { return api.easy_perform(handle); }

const char *paypulse_curl_easy_strerror(CURLcode code) {
    return paypulse_curl_load() == CURLE_OK ? api.easy_strerror(code) : "libcurl is not loaded";
}

struct curl_slist *paypulse_curl_slist_append(struct curl_slist *list, const char *value) {
    return paypulse_curl_load() == CURLE_OK ? api.slist_append(list, value) : NULL;
}

void paypulse_curl_slist_free_all(struct curl_slist *list) {
    if (list != NULL) api.slist_free_all(list);
}

CURLcode paypulse_curl_setopt_long(CURL *handle, CURLoption option, long value) { return api.easy_setopt(handle, option, value); }
CURLcode paypulse_curl_setopt_string(CURL *handle, CURLoption option, const char *value) { return api.easy_setopt(handle, option, value); }
CURLcode paypulse_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) { return api.easy_setopt(handle, option, value); }
CURLcode paypulse_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) { return api.easy_setopt(handle, option, value); }
CURLcode paypulse_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return api.easy_setopt(handle, option, value); }
CURLcode paypulse_curl_setopt_write_callback(CURL *handle, CURLoption option, paypulse_curl_write_callback value) {
    return api.easy_setopt(handle, option, value);
}
CURLcode paypulse_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) { return api.easy_getinfo(handle, info, value); }
CURLcode paypulse_curl_getinfo_double(CURL *handle, CURLINFO info, double *value) { return api.easy_getinfo(handle, info, value); }
