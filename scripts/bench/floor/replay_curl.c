// The exchange floor: a captured sequence of HTTP requests (benchlib/floor.py records them as
// our function sends them) replayed through libcurl, one reused easy handle reset per
// transfer as the project's CurlEasyHandle uses it, with no signing, JSON or logic around
// it: the method, URL, headers and body as captured, the answer's body read into a buffer.
// It knows nothing of the product: what it sends is whatever the capture holds.
//
//   replay-curl FILE MARKS [CAFILE]
//
// FILE: per request "METHOD URL HEADERS BODYLEN\n", HEADERS lines "Name: value\n", BODYLEN
// bytes of body and "\n". MARKS: comma-separated request indices; before request k (and
// after the last when k is their count) it notes its own CPU (getrusage) and the time.
// CAFILE: the CA certificates to trust (CURLOPT_CAINFO), for an HTTPS capture.
// Prints "mark K USER_US SYSTEM_US WALL_US" per mark, then "req I STATUS NEW_CONNECTIONS" per
// request (libcurl's CURLINFO_NUM_CONNECTS: connections the transfer had to open).
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

struct request { char method[16]; char *url; int header_count; char **headers; char *body; long body_length; };
struct buffer { char *data; size_t length, capacity; };

static size_t collect(char *data, size_t size, size_t count, void *user) {
    struct buffer *buffer = user;
    size_t length = size * count;
    if (buffer->length + length > buffer->capacity) {
        buffer->capacity = (buffer->length + length) * 2;
        buffer->data = realloc(buffer->data, buffer->capacity);
    }
    memcpy(buffer->data + buffer->length, data, length);
    buffer->length += length;
    return length;
}

static double micros(struct timeval t) { return (double)t.tv_sec * 1e6 + (double)t.tv_usec; }

static char *read_line(FILE *file) {
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length = getline(&line, &capacity, file);
    if (length <= 0) { free(line); return NULL; }
    if (line[length - 1] == '\n') line[length - 1] = 0;
    return line;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: replay-curl FILE MARKS [CAFILE]\n"); return 2; }
    const char *cafile = argc > 3 ? argv[3] : NULL;
    FILE *file = fopen(argv[1], "rb");
    if (!file) { fprintf(stderr, "replay-curl: cannot open %s\n", argv[1]); return 2; }
    int count = 0, capacity = 1024;
    struct request *requests = malloc(sizeof *requests * capacity);
    char *line;
    while ((line = read_line(file)) != NULL) {
        if (count == capacity) { capacity *= 2; requests = realloc(requests, sizeof *requests * capacity); }
        struct request *r = &requests[count];
        char url[8192];
        if (sscanf(line, "%15s %8191s %d %ld", r->method, url, &r->header_count, &r->body_length) != 4) {
            fprintf(stderr, "replay-curl: bad request line %d\n", count);
            return 2;
        }
        free(line);
        r->url = strdup(url);
        r->headers = malloc(sizeof(char *) * (size_t)(r->header_count + 1));
        for (int h = 0; h < r->header_count; h++) {
            if ((r->headers[h] = read_line(file)) == NULL) { fprintf(stderr, "replay-curl: truncated\n"); return 2; }
        }
        r->body = malloc((size_t)r->body_length + 1);
        if (fread(r->body, 1, (size_t)r->body_length, file) != (size_t)r->body_length || fgetc(file) != '\n') {
            fprintf(stderr, "replay-curl: truncated body\n");
            return 2;
        }
        r->body[r->body_length] = 0;
        count++;
    }
    fclose(file);
    char *marked = calloc((size_t)count + 1, 1);
    for (char *mark = strtok(argv[2], ","); mark; mark = strtok(NULL, ",")) {
        int k = atoi(mark);
        if (k >= 0 && k <= count) marked[k] = 1;
    }
    long *statuses = calloc((size_t)count, sizeof(long)), *connects = calloc((size_t)count, sizeof(long));
    double (*readings)[4] = calloc((size_t)count + 1, sizeof *readings);
    struct buffer body = { malloc(65536), 0, 65536 };

    curl_global_init(CURL_GLOBAL_ALL);
    CURL *handle = curl_easy_init();
    for (int i = 0; i <= count; i++) {
        if (marked[i]) {
            struct rusage usage;
            struct timespec now;
            getrusage(RUSAGE_SELF, &usage);
            clock_gettime(CLOCK_MONOTONIC, &now);
            readings[i][0] = 1;
            readings[i][1] = micros(usage.ru_utime);
            readings[i][2] = micros(usage.ru_stime);
            readings[i][3] = (double)now.tv_sec * 1e6 + (double)now.tv_nsec / 1e3;
        }
        if (i == count) break;
        struct request *r = &requests[i];
        struct curl_slist *headers = NULL;
        for (int h = 0; h < r->header_count; h++) headers = curl_slist_append(headers, r->headers[h]);
        headers = curl_slist_append(headers, "Expect:");
        curl_easy_reset(handle);
        curl_easy_setopt(handle, CURLOPT_URL, r->url);
        curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(handle, CURLOPT_TCP_KEEPALIVE, 1L);
        if (cafile) curl_easy_setopt(handle, CURLOPT_CAINFO, cafile);
        curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
        body.length = 0;
        curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collect);
        curl_easy_setopt(handle, CURLOPT_WRITEDATA, &body);
        if (strcmp(r->method, "HEAD") == 0) {
            curl_easy_setopt(handle, CURLOPT_NOBODY, 1L);
        } else if (strcmp(r->method, "GET") != 0 || r->body_length > 0) {
            if (strcmp(r->method, "POST") == 0 || r->body_length > 0) {
                curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_length);
                curl_easy_setopt(handle, CURLOPT_POSTFIELDS, r->body);
            }
            if (strcmp(r->method, "POST") != 0) curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, r->method);
        }
        CURLcode code = curl_easy_perform(handle);
        if (code != CURLE_OK) { fprintf(stderr, "replay-curl: request %d %s: %s\n", i, r->url, curl_easy_strerror(code)); return 3; }
        curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &statuses[i]);
        curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &connects[i]);
        curl_slist_free_all(headers);
    }
    curl_easy_cleanup(handle);
    for (int i = 0; i <= count; i++) {
        if (readings[i][0]) printf("mark %d %.0f %.0f %.0f\n", i, readings[i][1], readings[i][2], readings[i][3]);
    }
    for (int i = 0; i < count; i++) printf("req %d %ld %ld\n", i, statuses[i], connects[i]);
    return 0;
}
