/* libFuzzer target: the serving trace reader (CSV or JSONL of arrival, prompt, output tokens).
 * The reader takes a path, so each input is written to a private temporary file first. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/gp_fuzz_trace_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        unlink(path);
        return 0;
    }
    close(fd);
    gp_trace_request *t = NULL;
    size_t n = 0;
    gp_error err;
    gp_status st = gp_trace_read(path, &t, &n, &err);
    unlink(path);
    if (st != GP_OK && !err.msg[0])
        abort(); /* every failure explains itself */
    if (st == GP_OK && n > 0 && !t)
        abort();
    gp_trace_free(t);
    return 0;
}
