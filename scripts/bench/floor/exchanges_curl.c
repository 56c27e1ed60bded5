// The exchange floor through libcurl, the transport this project must use (DEVELOPERS.md:
// "a Secrets-Manager-compatible REST client on libcurl"): the same spec, calls and output as
// exchanges.swift, each request one curl_easy_perform on one reused easy handle (reset per
// transfer, as the project's CurlEasyHandle does), with no signing, JSON or logic around it.
// libcurl keeps its own connection cache, so kept-alive servers are reused as ours are.
//
//   exchanges-curl SPEC CALLS WARMUP   ->   "<CPU µs per call> <user µs> <system µs> <5xx answers>"
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

struct request { int port; char *method, *path; struct curl_slist *headers; char *body; size_t body_length; };

static size_t discard(char *data, size_t size, size_t count, void *user) { (void)data; (void)user; return size * count; }

static char *substitute(const char *template, size_t length, const char *number, size_t *out_length) {
    char *out = malloc(length * 2 + 64);
    size_t o = 0;
    for (size_t i = 0; i < length; i++) {
        if (i + 2 < length && template[i] == '{' && template[i + 1] == 'i' && template[i + 2] == '}') {
            o += (size_t)sprintf(out + o, "%s", number);
            i += 2;
        } else {
            out[o++] = template[i];
        }
    }
    out[o] = 0;
    *out_length = o;
    return out;
}

static double micros(struct timeval t) { return (double)t.tv_sec * 1e6 + (double)t.tv_usec; }

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: exchanges-curl SPEC CALLS WARMUP\n"); return 2; }
    int calls = atoi(argv[2]), warmup = atoi(argv[3]);
    FILE *file = fopen(argv[1], "rb");
    if (!file) { fprintf(stderr, "exchanges-curl: cannot open %s\n", argv[1]); return 2; }
    // Each entry: "PORT HEADLEN BODYLEN\n", head, body; kept whole and parsed per call.
    struct { int port; char *head; size_t head_length; char *body; size_t body_length; } spec[32];
    int count = 0, port;
    size_t head_length, body_length;
    while (count < 32 && fscanf(file, "%d %zu %zu\n", &port, &head_length, &body_length) == 3) {
        spec[count].port = port;
        spec[count].head = malloc(head_length + 1);
        spec[count].body = malloc(body_length + 1);
        if (fread(spec[count].head, 1, head_length, file) != head_length || fread(spec[count].body, 1, body_length, file) != body_length) {
            fprintf(stderr, "exchanges-curl: truncated spec\n");
            return 2;
        }
        spec[count].head[head_length] = 0;
        spec[count].body[body_length] = 0;
        spec[count].head_length = head_length;
        spec[count].body_length = body_length;
        count++;
    }
    fclose(file);
    curl_global_init(CURL_GLOBAL_ALL);
    CURL *handle = curl_easy_init();
    int server_errors = 0;
    struct rusage start, end;
    getrusage(RUSAGE_SELF, &start);
    for (int call = 0; call < warmup + calls; call++) {
        if (call == warmup) getrusage(RUSAGE_SELF, &start);
        char number[24];
        snprintf(number, sizeof number, "%d", call);
        for (int r = 0; r < count; r++) {
            size_t length, body_size;
            char *head = substitute(spec[r].head, spec[r].head_length, number, &length);
            char *body = substitute(spec[r].body, spec[r].body_length, number, &body_size);
            // The request line gives the method and path; the other lines are headers (Host is libcurl's).
            char *line_end = strstr(head, "\r\n");
            *line_end = 0;
            char *method = head, *path = strchr(head, ' ') + 1;
            *(path - 1) = 0;
            *strchr(path, ' ') = 0;
            struct curl_slist *headers = NULL;
            for (char *line = line_end + 2; *line; ) {
                char *next = strstr(line, "\r\n");
                *next = 0;
                if (strncasecmp(line, "Host:", 5) != 0) headers = curl_slist_append(headers, line);
                line = next + 2;
            }
            headers = curl_slist_append(headers, "Expect:");
            char url[2048];
            snprintf(url, sizeof url, "http://127.0.0.1:%d%s", spec[r].port, path);
            curl_easy_reset(handle);
            curl_easy_setopt(handle, CURLOPT_URL, url);
            curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
            curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, discard);
            curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
            if (strcmp(method, "GET") != 0) {
                curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body);
                curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_size);
            }
            CURLcode code = curl_easy_perform(handle);
            if (code != CURLE_OK) { fprintf(stderr, "exchanges-curl: %s\n", curl_easy_strerror(code)); return 2; }
            long status = 0;
            curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
            if (status >= 500) server_errors++;
            curl_slist_free_all(headers);
            free(head);
            free(body);
        }
    }
    getrusage(RUSAGE_SELF, &end);
    double user = (micros(end.ru_utime) - micros(start.ru_utime)) / calls;
    double system = (micros(end.ru_stime) - micros(start.ru_stime)) / calls;
    printf("%f %f %f %d\n", user + system, user, system, server_errors);
    curl_easy_cleanup(handle);
    return 0;
}
