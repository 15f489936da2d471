/*
 * tensors.c: exact tallies of the tensors stored in weight files (safetensors, GGUF).
 *
 * A tensor is a parameter unless it is a known non-trainable buffer that some converters
 * store: rotary inverse frequencies ("rotary_emb.inv_freq" in older Llama checkpoints,
 * "rope_freqs" in Llama 3.1 GGUFs). Buffers are tallied apart so that the exact count equals
 * the model's parameters and the difference can be explained.
 */
#include "internal.h"

#include <string.h>

static int is_buffer(const char *tensor_name)
{
    static const char *const buffer_markers[] = {
        "inv_freq",          "rope_freqs",         "rotary_emb.cos_cached", "rotary_emb.sin_cached",
        "rope_factors_long", "rope_factors_short", "attn.masked_bias",      "attn.bias"};
    if (!tensor_name)
        return 0;
    for (size_t i = 0; i < sizeof buffer_markers / sizeof buffer_markers[0]; i++) {
        const char *hit = strstr(tensor_name, buffer_markers[i]);
        /* a marker must start a name component ("h.0.attn.bias", not "c_attn.bias"); GPT-2's
         * "attn.bias" (the causal mask) must also end the name */
        if (hit && (hit == tensor_name || hit[-1] == '.') && (i < 6 || hit[strlen(buffer_markers[i])] == '\0'))
            return 1;
    }
    return 0;
}

void gpi_model_add_tensor(gp_model *m, const char *tensor_name, const char *type_name, int64_t elements, uint64_t bytes)
{
    m->has_exact = 1;
    m->exact_tensors++;
    m->exact_bytes += bytes;
    if (is_buffer(tensor_name))
        m->exact_buffers += elements;
    else
        m->exact_params += elements;
    int i;
    for (i = 0; i < m->n_dtype_stats; i++)
        if (strcmp(m->dtype_stats[i].name, type_name) == 0)
            break;
    if (i == m->n_dtype_stats) {
        if (m->n_dtype_stats == GP_MAX_DTYPE_STATS)
            i = GP_MAX_DTYPE_STATS - 1; /* lump the rarest types into the last row */
        else {
            m->n_dtype_stats++;
            gpi_strlcpy(m->dtype_stats[i].name, type_name, sizeof m->dtype_stats[i].name);
        }
    }
    m->dtype_stats[i].tensors++;
    m->dtype_stats[i].elements += elements;
    m->dtype_stats[i].bytes += bytes;
}
