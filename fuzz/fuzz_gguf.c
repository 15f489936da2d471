/*
 * fuzz_gguf.c: libFuzzer target for the GGUF header reader. The input is the whole file
 * (file_size = size), so every tensor's data must lie inside it; seeds in corpus/fuzz_gguf/.
 * Checks beyond "no crash, no leak": a failure always says where (message, offset), and a
 * success yields a model that passes gp_model_validate and whose exact byte tally fits in the
 * input (unless tensors overlap, which is reported in the notes).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gp_model m;
    gp_error err;
    gp_status st = gpi_model_from_gguf_buffer(data, size, size, "fuzz.gguf", &m, &err);
    if (st != GP_OK) {
        if (err.code != st || err.msg[0] == '\0' || !strstr(err.msg, "fuzz.gguf"))
            abort();
        if (st != GP_ENOMEM && err.offset < 0)
            abort();
        return 0;
    }
    if (gp_model_validate(&m, NULL) != GP_OK)
        abort();
    /* tensors lie inside the input, so their bytes add up to less unless some overlap */
    if (m.has_exact && m.exact_bytes > size && !strstr(m.notes, "overlap"))
        abort();
    if (m.exact_params < 0 || m.exact_buffers < 0)
        abort();
    gp_param_breakdown p;
    (void)gp_model_params(&m, &p, NULL);
    (void)gpi_ggml_type_bytes(size > 0 ? data[0] : 0, size);
    return 0;
}
