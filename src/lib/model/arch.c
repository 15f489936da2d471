/*
 * arch.c: what a transformer's architecture implies, counted exactly.
 *
 * Parameter counts follow the module structure of the Hugging Face implementations of each
 * family (docs/model.md gives the per-part formulas and worked examples):
 *   attention (per layer), standard:  q: h*H*d, k and v: h*KV*d each, o: H*d*h
 *                                      (+ biases, + 2d for q/k norms, + H attention sinks)
 *   attention (per layer), MLA (DeepSeek-V2 paper section 2.1):
 *        q: h*H*(dn+dr) or h*rq + rq + rq*H*(dn+dr) with a low-rank q (q_lora_rank rq)
 *        kv_a: h*(rkv+dr), its norm rkv, kv_b: rkv*H*(dn+dv), o: H*dv*h
 *   dense MLP: gated (SwiGLU) 3*h*f, plain 2*h*f (+ biases)
 *   MoE layer: E routed experts of 3*h*fe each, S shared experts, router E*h
 *   norms: per layer n*h (RMSNorm) or n*2h (LayerNorm), plus the final norm
 *   embedding V*h, head V*h unless tied, learned positions P*h.
 * FLOPs: 2 per multiply-accumulate (Kaplan et al. 2020, section 2.1): forward = 2 x the
 * active matrix parameters + the attention score and value products over the context.
 */
#include "internal.h"

#include <string.h>

void gpi_model_init(gp_model *m)
{
    memset(m, 0, sizeof *m);
    m->norms_per_layer = 2;
    m->dtype = GP_DTYPE_BF16;
}

static int64_t norm_width(const gp_model *m)
{
    return m->norm == GP_NORM_LAYER ? 2 * m->hidden : m->hidden;
}

static int is_mla(const gp_model *m)
{
    return m->kv_lora_rank > 0;
}

static int64_t attention_params_per_layer(const gp_model *m)
{
    const int64_t h = m->hidden, H = m->heads;
    if (is_mla(m)) {
        const int64_t dqk = m->qk_nope_head_dim + m->qk_rope_head_dim;
        int64_t n = 0;
        if (m->q_lora_rank > 0)
            n += h * m->q_lora_rank + m->q_lora_rank + m->q_lora_rank * H * dqk;
        else
            n += h * H * dqk;
        n += h * (m->kv_lora_rank + m->qk_rope_head_dim);                 /* kv_a_proj_with_mqa */
        n += m->kv_lora_rank;                                             /* kv_a_layernorm */
        n += m->kv_lora_rank * H * (m->qk_nope_head_dim + m->v_head_dim); /* kv_b_proj */
        n += H * m->v_head_dim * h;                                       /* o_proj */
        if (m->o_bias)
            n += h;
        return n;
    }
    const int64_t qd = H * m->head_dim, kvd = m->kv_heads * m->head_dim;
    int64_t n = h * qd + 2 * h * kvd + qd * h;
    if (m->qkv_bias)
        n += qd + 2 * kvd;
    if (m->o_bias)
        n += h;
    if (m->qk_norm)
        n += 2 * m->head_dim;
    if (m->attn_sinks)
        n += H;
    return n;
}

static int64_t mlp_params(const gp_model *m, int64_t inner, int with_bias)
{
    const int64_t h = m->hidden;
    if (m->mlp == GP_MLP_PLAIN)
        return 2 * h * inner + (with_bias ? inner + h : 0);
    return 3 * h * inner + (with_bias ? 2 * inner + h : 0);
}

static int64_t moe_layer_count(const gp_model *m)
{
    if (m->experts <= 0)
        return 0;
    int64_t n = m->layers - m->dense_layers;
    return n < 0 ? 0 : n;
}

/* Multiply-safe check: every dimension within GPI_MAX_DIM keeps products of three dims in
 * int64 range only when the product is small; we check the total in double first. */
static double approx_total(const gp_model *m)
{
    double h = (double)m->hidden, L = (double)m->layers;
    double per_layer = 4.0 * h * (double)(m->heads > 0 ? m->heads : 1) * (double)(m->head_dim > 0 ? m->head_dim : 1) +
                       3.0 * h * (double)m->ffn +
                       3.0 * h * (double)m->moe_ffn * (double)(m->experts + m->shared_experts) +
                       3.0 * h * (double)m->shared_expert_ffn * (double)m->shared_experts;
    if (m->kv_lora_rank > 0) {
        double H = (double)m->heads, rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
        double dqk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim);
        double dv = (double)m->v_head_dim;
        per_layer += h * rq + rq * H * dqk + h * H * dqk + h * (rkv + (double)m->qk_rope_head_dim) +
                     rkv * H * ((double)m->qk_nope_head_dim + dv) + H * dv * h;
    }
    return L * per_layer + 2.0 * h * ((double)m->vocab + (double)m->learned_pos);
}

gp_status gp_model_validate(const gp_model *m, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    struct {
        const char *name;
        int64_t v;
        int must_be_positive;
    } dims[] = {
        {"layers", m->layers, 1},
        {"hidden", m->hidden, 1},
        {"heads", m->heads, 1},
        {"kv_heads", m->kv_heads, 1},
        {"head_dim", m->head_dim, 1},
        {"vocab", m->vocab, 1},
        {"ffn", m->ffn, 0},
        {"experts", m->experts, 0},
        {"experts_active", m->experts_active, 0},
        {"moe_ffn", m->moe_ffn, 0},
        {"shared_experts", m->shared_experts, 0},
        {"kv_lora_rank", m->kv_lora_rank, 0},
        {"q_lora_rank", m->q_lora_rank, 0},
        {"sliding_window", m->sliding_window, 0},
        {"max_context", m->max_context, 0},
        {"dense_layers", m->dense_layers, 0},
        {"shared_expert_ffn", m->shared_expert_ffn, 0},
        {"qk_nope_head_dim", m->qk_nope_head_dim, 0},
        {"qk_rope_head_dim", m->qk_rope_head_dim, 0},
        {"v_head_dim", m->v_head_dim, 0},
        {"learned_pos", m->learned_pos, 0},
        {"sliding_layers", m->sliding_layers, 0},
        {"mtp_layers", m->mtp_layers, 0},
        {"quant_group", m->quant_group, 0},
    };
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i].v < 0 || dims[i].v > GPI_MAX_DIM || (dims[i].must_be_positive && dims[i].v == 0)) {
            gpi_error_set_field(err, dims[i].name);
            return gpi_fail(err, GP_EINVAL, "architecture field '%s' is %lld: it must be %s and at most 2^40",
                            dims[i].name, (long long)dims[i].v,
                            dims[i].must_be_positive ? "a positive whole number" : "zero or more");
        }
    }
    if (m->norms_per_layer < 0 || m->norms_per_layer > 8) {
        gpi_error_set_field(err, "norms_per_layer");
        return gpi_fail(err, GP_EINVAL, "norms_per_layer is %d: it must be between 0 and 8", m->norms_per_layer);
    }
    if (!is_mla(m) && m->heads % m->kv_heads != 0) {
        gpi_error_set_field(err, "kv_heads");
        return gpi_fail(err, GP_EINVAL,
                        "kv_heads (%lld) must divide heads (%lld): each KV head serves a whole group of query heads",
                        (long long)m->kv_heads, (long long)m->heads);
    }
    if (m->experts > 0 && (m->experts_active <= 0 || m->experts_active > m->experts)) {
        gpi_error_set_field(err, "experts_active");
        return gpi_fail(err, GP_EINVAL, "experts_active (%lld) must be between 1 and experts (%lld)",
                        (long long)m->experts_active, (long long)m->experts);
    }
    if (m->experts > 0 && m->moe_ffn <= 0) {
        gpi_error_set_field(err, "moe_ffn");
        return gpi_fail(err, GP_EINVAL, "a mixture-of-experts model needs moe_ffn (the inner width of one expert)");
    }
    if (m->experts == 0 && m->experts_active > 0) {
        gpi_error_set_field(err, "experts");
        return gpi_fail(err, GP_EINVAL, "experts_active is set but experts is 0");
    }
    if ((m->experts == 0 || m->dense_layers > 0) && m->ffn <= 0) {
        gpi_error_set_field(err, "ffn");
        return gpi_fail(err, GP_EINVAL, "ffn (the MLP inner width, intermediate_size) is missing or zero");
    }
    if (m->dense_layers > m->layers) {
        gpi_error_set_field(err, "dense_layers");
        return gpi_fail(err, GP_EINVAL, "dense_layers (%lld) exceeds layers (%lld)", (long long)m->dense_layers,
                        (long long)m->layers);
    }
    if (m->sliding_layers > m->layers) {
        gpi_error_set_field(err, "sliding_layers");
        return gpi_fail(err, GP_EINVAL, "sliding_layers exceeds layers");
    }
    if (is_mla(m) && (m->qk_nope_head_dim <= 0 || m->qk_rope_head_dim < 0 || m->v_head_dim <= 0)) {
        gpi_error_set_field(err, "qk_nope_head_dim");
        return gpi_fail(err, GP_EINVAL,
                        "multi-head latent attention needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
    }
    if (approx_total(m) > 1e15) {
        gpi_error_set_field(err, "hidden");
        return gpi_fail(err, GP_EINVAL, "the architecture implies over 10^15 parameters: check the dimensions");
    }
    return GP_OK;
}

gp_status gp_model_params(const gp_model *m, gp_param_breakdown *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    gp_status st = gp_model_validate(m, err);
    if (st)
        return st;
    const int64_t h = m->hidden, L = m->layers, V = m->vocab;
    const int64_t moe_layers = moe_layer_count(m), dense_layers = L - moe_layers;

    out->embedding = V * h;
    out->position = m->learned_pos * h;
    out->head = m->tied_embeddings ? 0 : V * h;
    out->attention = L * attention_params_per_layer(m);
    out->mlp_dense = dense_layers * mlp_params(m, m->ffn, m->mlp_bias);
    out->norms = L * (int64_t)m->norms_per_layer * norm_width(m) + norm_width(m);

    int64_t per_expert = 0;
    if (moe_layers > 0) {
        per_expert = mlp_params(m, m->moe_ffn, m->expert_bias);
        out->experts_routed = moe_layers * m->experts * per_expert;
        int64_t sffn = m->shared_expert_ffn > 0 ? m->shared_expert_ffn : m->moe_ffn;
        out->experts_shared =
            moe_layers * (m->shared_experts * mlp_params(m, sffn, m->expert_bias) + (m->shared_expert_gate ? h : 0));
        out->router =
            moe_layers * (m->experts * h + (m->router_bias ? m->experts : 0) + (m->router_score_bias ? m->experts : 0));
    }
    out->total = out->embedding + out->position + out->head + out->attention + out->mlp_dense + out->norms +
                 out->experts_routed + out->experts_shared + out->router;
    int64_t unused = moe_layers * (m->experts - m->experts_active) * per_expert;
    out->active = out->total - unused;
    out->linear = out->attention + out->mlp_dense + out->experts_routed + out->experts_shared;
    out->linear_active = out->linear - unused;
    return GP_OK;
}

int64_t gp_model_total_params(const gp_model *m)
{
    /* Packed quantized safetensors (GPTQ/AWQ int32 words, MXFP4 byte pairs) store fewer
     * elements than parameters: there the architecture's count is the parameter count.
     * GGUF types count elements exactly, packed or not. */
    int packed = m->origin == GP_ORIGIN_HF_FOLDER && m->quant != GP_DTYPE_UNKNOWN;
    if (m->has_exact && m->exact_params > 0 && !packed)
        return m->exact_params;
    gp_param_breakdown p;
    if (gp_model_params(m, &p, NULL) != GP_OK)
        return 0;
    return p.total;
}

uint64_t gp_model_weight_bytes(const gp_model *m, gp_dtype t)
{
    if (t == GP_DTYPE_UNKNOWN && m->has_exact && m->exact_bytes > 0)
        return m->exact_bytes;
    if (t == GP_DTYPE_UNKNOWN)
        t = m->quant != GP_DTYPE_UNKNOWN ? m->quant : m->dtype;
    gp_param_breakdown p;
    if (gp_model_params(m, &p, NULL) != GP_OK)
        return 0;
    double bits = gp_dtype_bits(t);
    if (bits >= 16.0)
        return gpi_u64_sat((double)p.total * bits / 8.0 + 0.5);
    /* Weight-only quantization compresses the matrices inside the blocks; embeddings,
     * head, norms and routers stay at 16 bits (GPTQ/AWQ/bitsandbytes/FP8 checkpoints). */
    return gpi_u64_sat((double)p.linear * bits / 8.0 + 0.5) + (uint64_t)(p.total - p.linear) * 2u;
}

static double kv_elem_bytes(gp_dtype t)
{
    double b = gp_dtype_bits(t) / 8.0;
    return b > 0 ? b : 2.0;
}

/* Elements cached per token per layer. */
static int64_t kv_elems_per_layer(const gp_model *m)
{
    if (is_mla(m)) /* the compressed latent and the shared rotary key (DeepSeek-V2 2.1.2) */
        return m->kv_lora_rank + m->qk_rope_head_dim;
    return 2 * m->kv_heads * m->head_dim;
}

uint64_t gp_model_kv_bytes_per_token(const gp_model *m, gp_dtype kv_dtype)
{
    /* saturates: a hostile architecture may hold more than 2^64 bytes per token */
    return gpi_u64_sat((double)m->layers * (double)kv_elems_per_layer(m) * kv_elem_bytes(kv_dtype) + 0.5);
}

uint64_t gp_model_kv_bytes(const gp_model *m, gp_dtype kv_dtype, int64_t tokens)
{
    if (tokens <= 0)
        return 0;
    int64_t sliding = m->sliding_window > 0 ? m->sliding_layers : 0;
    int64_t full = m->layers - sliding;
    int64_t win_tokens = tokens < m->sliding_window ? tokens : m->sliding_window;
    double elems =
        (double)kv_elems_per_layer(m) * ((double)full * (double)tokens + (double)sliding * (double)win_tokens);
    return gpi_u64_sat(elems * kv_elem_bytes(kv_dtype) + 0.5); /* saturates past 2^64 */
}

double gp_model_forward_flops_per_token(const gp_model *m, int64_t context)
{
    gp_param_breakdown p;
    if (gp_model_params(m, &p, NULL) != GP_OK)
        return 0.0;
    double flops = 2.0 * (double)p.linear_active + 2.0 * (double)m->vocab * (double)m->hidden;
    flops += 2.0 * (double)p.router; /* routers are small matmuls too */
    double dqk = is_mla(m) ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) : (double)m->head_dim;
    double dv = is_mla(m) ? (double)m->v_head_dim : (double)m->head_dim;
    int64_t sliding = m->sliding_window > 0 ? m->sliding_layers : 0;
    double ctx_full = (double)(context > 0 ? context : 0);
    double ctx_win = m->sliding_window > 0 && context > m->sliding_window ? (double)m->sliding_window : ctx_full;
    double ctx_sum = (double)(m->layers - sliding) * ctx_full + (double)sliding * ctx_win;
    flops += 2.0 * (double)m->heads * (dqk + dv) * ctx_sum; /* q.k scores and weights.v */
    return flops;
}
