/* libFuzzer target: the Hugging Face config.json reader (and catalog-style JSON through it).
 * Any input must give GP_OK with a valid architecture, or an error with a message. */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gp_model m;
    gp_error err;
    gp_status st = gp_model_from_hf_config_text((const char *)data, size, "fuzz.json", &m, &err);
    if (st != GP_OK) {
        if (!err.msg[0])
            abort(); /* every failure explains itself */
        return 0;
    }
    if (gp_model_validate(&m, NULL) != GP_OK)
        abort();
    gp_param_breakdown p;
    if (gp_model_params(&m, &p, NULL) != GP_OK || p.total <= 0 || p.active > p.total)
        abort();
    (void)gp_model_kv_bytes(&m, GP_DTYPE_BF16, 1 << 20);
    (void)gp_model_forward_flops_per_token(&m, 4096);
    (void)gp_model_weight_bytes(&m, GP_DTYPE_INT4);
    return 0;
}
