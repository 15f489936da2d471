/*
 * fuzz_safetensors.c: libFuzzer target for the safetensors header scanner.
 *
 * The input is a whole file: its first 8 bytes are the header length, the rest the JSON
 * header and data. The scanner must reject anything malformed with an error and never read
 * past the buffer, overflow, leak or crash. On success the tallies must be consistent: the
 * bytes counted never exceed the file's data section.
 */
#include "internal.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gp_model m;
    gp_error err;
    gpi_model_init(&m);
    gp_status st = gpi_safetensors_scan_buffer(data, size, size, "fuzz", &m, &err);
    if (st == GP_OK) {
        if (m.exact_bytes > size || m.exact_params < 0 || m.exact_buffers < 0)
            abort();
    } else if (err.code != st || err.msg[0] == '\0' || m.exact_tensors != 0) {
        abort(); /* every failure explains itself and leaves the model untouched */
    }
    return 0;
}
