/*
 * hf_config.c: a Hugging Face config.json -> gp_model.
 *
 * One table row per model family says what its config leaves implicit (MLP kind, norm kind,
 * norms per block, default biases, tied head); the fields themselves are read by name, with
 * the aliases the families use (n_embd / hidden_size / d_model ...). Multimodal configs that
 * nest the language model in "text_config" (Gemma 3, Llava-style) are read from there.
 * Sources: the configuration_*.py and modeling_*.py files of transformers for each family.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum fam_id {
    FAM_GENERIC,
    FAM_LLAMA,
    FAM_MISTRAL,
    FAM_MIXTRAL,
    FAM_QWEN2,
    FAM_QWEN2_MOE,
    FAM_QWEN3,
    FAM_QWEN3_MOE,
    FAM_GEMMA,
    FAM_GEMMA2,
    FAM_GEMMA3,
    FAM_PHI3,
    FAM_DEEPSEEK,
    FAM_GPT_OSS,
    FAM_FALCON,
    FAM_GPT2,
    FAM_GPT_NEOX,
    FAM_OPT,
} fam_id;

typedef struct family {
    const char *model_type; /* config's model_type */
    fam_id id;
    gp_mlp_kind mlp;
    gp_norm_kind norm;
    int norms_per_layer;
    int qkv_bias, o_bias, mlp_bias; /* defaults when the config has no attention_bias/bias */
    int qk_norm;
    int tied_default;     /* tie_word_embeddings when the config omits it */
    const char *defaults; /* JSON object: the family's config class defaults for fields
                             that published configs omit (NULL: none) */
} family;

/* transformers Gemma3TextConfig defaults (configuration_gemma3.py); Google's published
 * gemma-3 configs omit these fields. */
static const char gemma3_defaults[] =
    "{\"vocab_size\": 262208, \"num_attention_heads\": 8, \"num_key_value_heads\": 4,"
    " \"head_dim\": 256, \"max_position_embeddings\": 131072, \"sliding_window\": 4096,"
    " \"sliding_window_pattern\": 6, \"intermediate_size\": 9216}";

/* FalconConfig defaults: falcon-180B's config omits max_position_embeddings. */
static const char falcon_defaults[] = "{\"max_position_embeddings\": 2048}";

static const family families[] = {
    {"llama", FAM_LLAMA, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, NULL},
    {"mistral", FAM_MISTRAL, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, NULL},
    {"mixtral", FAM_MIXTRAL, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, NULL},
    {"qwen2", FAM_QWEN2, GP_MLP_GATED, GP_NORM_RMS, 2, 1, 0, 0, 0, 0, NULL},
    {"qwen2_moe", FAM_QWEN2_MOE, GP_MLP_GATED, GP_NORM_RMS, 2, 1, 0, 0, 0, 0, NULL},
    {"qwen3", FAM_QWEN3, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 1, 0, NULL},
    {"qwen3_moe", FAM_QWEN3_MOE, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 1, 0, NULL},
    {"gemma", FAM_GEMMA, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 1, NULL},
    {"gemma2", FAM_GEMMA2, GP_MLP_GATED, GP_NORM_RMS, 4, 0, 0, 0, 0, 1, NULL},
    {"gemma3", FAM_GEMMA3, GP_MLP_GATED, GP_NORM_RMS, 4, 0, 0, 0, 1, 1, gemma3_defaults},
    {"gemma3_text", FAM_GEMMA3, GP_MLP_GATED, GP_NORM_RMS, 4, 0, 0, 0, 1, 1, gemma3_defaults},
    {"phi3", FAM_PHI3, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, NULL},
    {"deepseek_v2", FAM_DEEPSEEK, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, NULL},
    {"deepseek_v3", FAM_DEEPSEEK, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, NULL},
    {"gpt_oss", FAM_GPT_OSS, GP_MLP_GATED, GP_NORM_RMS, 2, 1, 1, 0, 0, 0, NULL},
    {"falcon", FAM_FALCON, GP_MLP_PLAIN, GP_NORM_LAYER, 2, 0, 0, 0, 0, 1, falcon_defaults},
    {"gpt2", FAM_GPT2, GP_MLP_PLAIN, GP_NORM_LAYER, 2, 1, 1, 1, 0, 1, NULL},
    {"gpt_neox", FAM_GPT_NEOX, GP_MLP_PLAIN, GP_NORM_LAYER, 2, 1, 1, 1, 0, 0, NULL},
    {"opt", FAM_OPT, GP_MLP_PLAIN, GP_NORM_LAYER, 2, 1, 1, 1, 0, 1, NULL},
};
static const family generic_family = {"", FAM_GENERIC, GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, NULL};

/* ---- typed field access with errors that name the field ---- */

typedef struct reader {
    json_t *obj;      /* the object fields are read from (root or text_config) */
    json_t *root;     /* the document root (fallback for fields outside text_config) */
    json_t *defaults; /* the family's defaults for omitted fields, or NULL */
    const char *name; /* file name for messages */
    gp_error *err;
    gp_status status; /* first error */
} reader;

static json_t *lookup(reader *r, const char *key)
{
    json_t *v = json_object_get(r->obj, key);
    if (!v && r->root != r->obj)
        v = json_object_get(r->root, key);
    if (!v && r->defaults)
        v = json_object_get(r->defaults, key);
    return v;
}

/* Read the first present key of a space-separated list as a non-negative integer.
 * Missing or null: returns 0 and *found = 0. Wrong type: records an error. */
static int64_t get_int(reader *r, const char *keys, int *found)
{
    char key[64];
    if (found)
        *found = 0;
    const char *p = keys;
    while (*p && r->status == GP_OK) {
        size_t n = strcspn(p, " ");
        if (n >= sizeof key)
            n = sizeof key - 1;
        memcpy(key, p, n);
        key[n] = '\0';
        p += n;
        while (*p == ' ')
            p++;
        json_t *v = lookup(r, key);
        if (!v || json_is_null(v))
            continue;
        double d;
        if (json_is_integer(v))
            d = (double)json_integer_value(v);
        else if (json_is_real(v) && fabs(json_real_value(v)) < 9007199254740992.0 &&
                 json_real_value(v) == floor(json_real_value(v)))
            d = json_real_value(v); /* 32.0 is a whole number; checked before any cast */
        else {
            gpi_error_set_path(r->err, r->name);
            gpi_error_set_field(r->err, key);
            r->status = gpi_fail(r->err, GP_EINVAL, "%s: field '%s' must be a whole number", r->name, key);
            return 0;
        }
        if (d < 0 || d > (double)GPI_MAX_DIM) {
            gpi_error_set_path(r->err, r->name);
            gpi_error_set_field(r->err, key);
            r->status =
                gpi_fail(r->err, GP_EINVAL, "%s: field '%s' is %.0f: out of range (0 to 2^40)", r->name, key, d);
            return 0;
        }
        if (found)
            *found = 1;
        return (int64_t)d;
    }
    return 0;
}

static int get_bool(reader *r, const char *key, int dflt)
{
    json_t *v = lookup(r, key);
    if (!v || json_is_null(v))
        return dflt;
    if (json_is_boolean(v))
        return json_is_true(v);
    if (json_is_integer(v))
        return json_integer_value(v) != 0;
    gpi_error_set_path(r->err, r->name);
    gpi_error_set_field(r->err, key);
    if (r->status == GP_OK)
        r->status = gpi_fail(r->err, GP_EINVAL, "%s: field '%s' must be true or false", r->name, key);
    return dflt;
}

static const char *get_str(reader *r, const char *key)
{
    json_t *v = lookup(r, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static const family *find_family(const char *model_type)
{
    if (!model_type)
        return NULL;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (gpi_strcaseeq(model_type, families[i].model_type))
            return &families[i];
    return NULL;
}

/* Count "sliding_attention" entries of layer_types; -1 if absent. */
static int64_t count_layer_types(reader *r, const char *value)
{
    json_t *lt = lookup(r, "layer_types");
    if (!json_is_array(lt))
        return -1;
    int64_t n = 0;
    size_t i;
    json_t *v;
    json_array_foreach(lt, i, v) if (json_is_string(v) && strcmp(json_string_value(v), value) == 0) n++;
    return n;
}

static void read_quantization(reader *r, gp_model *m)
{
    json_t *q = lookup(r, "quantization_config");
    if (!json_is_object(q))
        return;
    const char *method = json_string_value(json_object_get(q, "quant_method"));
    json_t *bits_v = json_object_get(q, "bits");
    int64_t bits = json_is_integer(bits_v) ? json_integer_value(bits_v) : 0;
    json_t *group_v = json_object_get(q, "group_size");
    m->quant_group = json_is_integer(group_v) && json_integer_value(group_v) > 0 ? json_integer_value(group_v) : 0;
    gpi_strlcpy(m->quant_method, method ? method : "unknown", sizeof m->quant_method);
    if (!method)
        return;
    if (gpi_strcaseeq(method, "gptq") || gpi_strcaseeq(method, "awq"))
        m->quant = bits == 8 ? GP_DTYPE_INT8 : GP_DTYPE_INT4;
    else if (gpi_strcaseeq(method, "fp8") || gpi_strcaseeq(method, "fbgemm_fp8"))
        m->quant = GP_DTYPE_FP8;
    else if (gpi_strcaseeq(method, "mxfp4"))
        m->quant = GP_DTYPE_MXFP4;
    else if (gpi_strcaseeq(method, "bitsandbytes"))
        m->quant = json_is_true(json_object_get(q, "load_in_8bit")) ? GP_DTYPE_INT8 : GP_DTYPE_NF4;
    else if (gpi_strcaseeq(method, "modelopt") || gpi_strcaseeq(method, "nvfp4"))
        m->quant = GP_DTYPE_FP4;
    else
        gpi_note(m->notes, sizeof m->notes, "quantization method '%s' is not modelled; weights are counted at %s",
                 method, gp_dtype_name(m->dtype));
}

/* rope_theta and rope_scaling {rope_type|type, factor}: what launchers that rebuild the model
 * (Megatron-LM's --rotary-base, --use-rope-scaling) must be told. */
static void read_rope(reader *r, gp_model *m)
{
    json_t *t = lookup(r, "rope_theta");
    m->rope_theta = json_is_number(t) ? json_number_value(t) : 0;
    json_t *s = lookup(r, "rope_scaling");
    if (!json_is_object(s))
        return;
    json_t *type = json_object_get(s, "rope_type");
    if (!json_is_string(type))
        type = json_object_get(s, "type");
    if (json_is_string(type))
        gpi_strlcpy(m->rope_scaling_type, json_string_value(type), sizeof m->rope_scaling_type);
    json_t *f = json_object_get(s, "factor");
    m->rope_scaling_factor = json_is_number(f) ? json_number_value(f) : 0;
}

static gp_status read_config(json_t *root, const char *name, gp_model *out, gp_error *err, json_t **defaults);

gp_status gpi_model_from_hf_json(json_t *root, const char *name, gp_model *out, gp_error *err)
{
    json_t *defaults = NULL;
    gp_status st = read_config(root, name, out, err, &defaults);
    json_decref(defaults);
    return st;
}

/* model_type -> the family row (text_config first for multimodal wrappers); the family's
 * defaults object, if it has one, is returned in *defaults for the caller to free. */
static const family *read_family(reader *r, gp_model *out, json_t **defaults)
{
    /* Multimodal wrappers keep the language model in text_config. */
    json_t *text = json_object_get(r->root, "text_config");
    if (json_is_object(text) && (!json_object_get(r->root, "hidden_size") || json_object_get(text, "hidden_size"))) {
        r->obj = text;
        gpi_note(out->notes, sizeof out->notes,
                 "read the language model from text_config; vision/audio towers are not counted");
    }
    const char *mt = json_string_value(json_object_get(r->obj, "model_type"));
    if (!mt)
        mt = json_string_value(json_object_get(r->root, "model_type"));
    const family *fam = find_family(mt);
    if (!fam) {
        fam = &generic_family;
        gpi_note(out->notes, sizeof out->notes,
                 "model_type '%s' is not a known family: read with the standard fields as a "
                 "Llama-like decoder (gated MLP, RMSNorm); check the counts",
                 mt ? mt : "(none)");
    }
    gpi_strlcpy(out->model_type, mt ? mt : "unknown", sizeof out->model_type);
    if (fam->defaults)
        r->defaults = *defaults = json_loads(fam->defaults, 0, NULL);
    out->origin = GP_ORIGIN_HF_CONFIG;
    out->mlp = fam->mlp;
    out->norm = fam->norm;
    out->norms_per_layer = fam->norms_per_layer;
    out->qk_norm = fam->qk_norm;
    return fam;
}

/* A field the model's shape cannot do without: "no <what> (<field>)" when absent. */
static gp_status need_int(reader *r, const char *keys, const char *field, const char *what, int64_t *out)
{
    int found;
    *out = get_int(r, keys, &found);
    if (!found && r->status == GP_OK) {
        gpi_error_set_path(r->err, r->name);
        gpi_error_set_field(r->err, field);
        return gpi_fail(r->err, GP_EINVAL, "%s: no %s (%s)", r->name, what, field);
    }
    return GP_OK;
}

/* Layers, widths, heads, context, tied head and RoPE. */
static gp_status read_shape(reader *r, const family *fam, gp_model *out)
{
    gp_status st;
    if ((st = need_int(r, "num_hidden_layers n_layer num_layers n_layers", "num_hidden_layers", "layer count",
                       &out->layers)) != GP_OK ||
        (st = need_int(r, "hidden_size n_embd d_model dim", "hidden_size", "model width", &out->hidden)) != GP_OK ||
        (st = need_int(r, "num_attention_heads n_head num_heads n_heads", "num_attention_heads", "attention head count",
                       &out->heads)) != GP_OK ||
        (st = need_int(r, "vocab_size padded_vocab_size", "vocab_size", "vocabulary size", &out->vocab)) != GP_OK)
        return st;
    int found;
    out->kv_heads = get_int(r, "num_key_value_heads num_kv_heads n_head_kv multi_query_group_num", &found);
    if (fam->id == FAM_FALCON) {
        if (!get_bool(r, "new_decoder_architecture", 0)) {
            out->kv_heads = get_bool(r, "multi_query", 1) ? 1 : out->heads;
            out->norms_per_layer = get_bool(r, "parallel_attn", 1) ? 1 : 2;
        } else {
            int64_t nln = get_int(r, "num_ln_in_parallel_attn", &found);
            out->norms_per_layer = found && nln == 1 ? 1 : 2;
        }
    }
    if (out->kv_heads == 0)
        out->kv_heads = out->heads;
    out->head_dim = get_int(r, "head_dim kv_channels", &found);
    if (!found && out->heads > 0)
        out->head_dim = out->hidden / out->heads;
    out->ffn = get_int(r, "intermediate_size n_inner ffn_dim ffn_hidden_size", &found);
    if (!found && (fam->id == FAM_GPT2 || fam->id == FAM_FALCON || fam->id == FAM_GPT_NEOX))
        out->ffn = 4 * out->hidden;
    out->max_context = get_int(r, "max_position_embeddings n_positions max_sequence_length seq_length n_ctx", NULL);
    out->tied_embeddings = get_bool(r, "tie_word_embeddings", fam->tied_default);
    read_rope(r, out);
    return GP_OK;
}

/* Biases (attention_bias, bias, mlp_bias over the family's defaults); learned positions. */
static void read_biases(reader *r, const family *fam, gp_model *out)
{
    int bias_all = get_bool(r, "bias", -1);
    int attn_bias = get_bool(r, "attention_bias", -1);
    out->qkv_bias = fam->qkv_bias;
    out->o_bias = fam->o_bias;
    out->mlp_bias = fam->mlp_bias;
    if (fam->id == FAM_FALCON && bias_all >= 0)
        out->qkv_bias = out->o_bias = out->mlp_bias = bias_all;
    if (attn_bias >= 0 && fam->id != FAM_QWEN2 && fam->id != FAM_QWEN2_MOE) {
        out->qkv_bias = out->o_bias = attn_bias;
    }
    out->mlp_bias = get_bool(r, "mlp_bias", out->mlp_bias);
    if (fam->id == FAM_GPT2 || fam->id == FAM_OPT) {
        int found;
        out->learned_pos = out->max_context + (fam->id == FAM_OPT ? 2 : 0); /* OPT offsets by 2 */
        int64_t proj = get_int(r, "word_embed_proj_dim", &found);
        if (found && proj != out->hidden)
            gpi_note(out->notes, sizeof out->notes,
                     "word_embed_proj_dim (%lld) differs from hidden_size: the projection layers are not counted",
                     (long long)proj);
    }
}

/* Dense layers of a MoE model: DeepSeek's first_k_dense_replace / moe_layer_freq, Qwen-MoE's
 * decoder_sparse_step / mlp_only_layers. */
static void read_dense_layers(reader *r, const family *fam, gp_model *out)
{
    int found;
    if (fam->id == FAM_DEEPSEEK) {
        int64_t first_dense = get_int(r, "first_k_dense_replace", NULL);
        int64_t freq = get_int(r, "moe_layer_freq", &found);
        if (!found || freq < 1)
            freq = 1;
        int64_t moe = 0;
        for (int64_t i = first_dense; i < out->layers; i++)
            if (i % freq == 0)
                moe++;
        out->dense_layers = out->layers - moe;
        const char *topk = get_str(r, "topk_method");
        out->router_score_bias = topk && strcmp(topk, "noaux_tc") == 0;
        out->mtp_layers = get_int(r, "num_nextn_predict_layers", NULL);
    } else if (fam->id == FAM_QWEN2_MOE || fam->id == FAM_QWEN3_MOE) {
        int64_t step = get_int(r, "decoder_sparse_step", &found);
        if (!found || step < 1)
            step = 1;
        json_t *only = lookup(r, "mlp_only_layers");
        int64_t moe = 0;
        for (int64_t i = 0; i < out->layers; i++) {
            int dense = 0;
            size_t k;
            json_t *v;
            json_array_foreach(only, k, v) if (json_is_integer(v) && json_integer_value(v) == i) dense = 1;
            if (!dense && (i + 1) % step == 0)
                moe++;
        }
        out->dense_layers = out->layers - moe;
    }
}

/* Mixture of experts: counts, widths, shared experts, dense layers, gpt-oss's biases. */
static void read_moe(reader *r, const family *fam, gp_model *out)
{
    out->experts = get_int(r, "num_local_experts n_routed_experts num_experts moe_num_experts", NULL);
    if (out->experts <= 0)
        return;
    int found;
    out->experts_active = get_int(r, "num_experts_per_tok experts_per_token moe_top_k top_k", NULL);
    out->moe_ffn = get_int(r, "moe_intermediate_size", &found);
    if (!found) /* Mixtral and gpt-oss: intermediate_size is the expert's width */
        out->moe_ffn = out->ffn;
    out->shared_experts = get_int(r, "n_shared_experts num_shared_experts", NULL);
    int64_t shared_ffn = get_int(r, "shared_expert_intermediate_size", &found);
    if (found && shared_ffn > 0) {
        out->shared_experts = out->shared_experts ? out->shared_experts : 1;
        out->shared_expert_ffn = shared_ffn;
        out->shared_expert_gate = fam->id == FAM_QWEN2_MOE;
    }
    read_dense_layers(r, fam, out);
    if (fam->id == FAM_GPT_OSS) {
        out->expert_bias = 1;
        out->router_bias = 1;
        out->attn_sinks = 1;
    }
}

/* Multi-head latent attention (DeepSeek-V2/V3). */
static void read_mla(reader *r, gp_model *out)
{
    out->kv_lora_rank = get_int(r, "kv_lora_rank", NULL);
    if (out->kv_lora_rank <= 0)
        return;
    out->q_lora_rank = get_int(r, "q_lora_rank", NULL);
    out->qk_nope_head_dim = get_int(r, "qk_nope_head_dim", NULL);
    out->qk_rope_head_dim = get_int(r, "qk_rope_head_dim", NULL);
    out->v_head_dim = get_int(r, "v_head_dim", NULL);
    out->head_dim = out->qk_nope_head_dim + out->qk_rope_head_dim;
    out->kv_heads = out->heads;
}

/* Sliding-window attention: layer_types if present, else the family's rule. */
static void read_window(reader *r, const family *fam, gp_model *out)
{
    int64_t window = get_int(r, "sliding_window", NULL);
    if (window <= 0)
        return;
    int64_t sliding = count_layer_types(r, "sliding_attention");
    if (sliding < 0) {
        int found;
        switch (fam->id) {
        case FAM_GEMMA2: sliding = (out->layers + 1) / 2; break;  /* even layers: 0, 2, ... */
        case FAM_GPT_OSS: sliding = (out->layers + 1) / 2; break; /* alternating, from layer 0 */
        case FAM_GEMMA3: {
            int64_t pattern = get_int(r, "sliding_window_pattern", &found);
            if (!found || pattern < 1)
                pattern = 6; /* Gemma 3 report: 5 local layers per global one */
            sliding = out->layers - out->layers / pattern;
            break;
        }
        case FAM_QWEN2:
        case FAM_QWEN2_MOE:
        case FAM_QWEN3:
        case FAM_QWEN3_MOE:
            if (get_bool(r, "use_sliding_window", 0)) {
                int64_t from = get_int(r, "max_window_layers", NULL);
                sliding = from < out->layers ? out->layers - from : 0;
            } else
                sliding = 0;
            break;
        default: sliding = out->layers; break; /* Mistral, Phi-3: every layer */
        }
    }
    if (sliding > 0) {
        out->sliding_window = window;
        out->sliding_layers = sliding;
    }
}

/* Storage: torch_dtype (or dtype) and quantization_config. */
static void read_storage(reader *r, gp_model *out)
{
    const char *dt = get_str(r, "torch_dtype");
    if (!dt)
        dt = get_str(r, "dtype");
    if (dt) {
        gp_dtype t = gpi_dtype_parse(dt);
        if (t != GP_DTYPE_UNKNOWN)
            out->dtype = t;
    }
    read_quantization(r, out);
}

static gp_status read_config(json_t *root, const char *name, gp_model *out, gp_error *err, json_t **defaults)
{
    gpi_model_init(out);
    if (!name)
        name = "config.json";
    if (!json_is_object(root)) {
        gpi_error_set_path(err, name);
        return gpi_fail(err, GP_EPARSE, "%s: a config.json must be a JSON object", name);
    }
    reader r = {root, root, NULL, name, err, GP_OK};
    const family *fam = read_family(&r, out, defaults);
    gp_status st = read_shape(&r, fam, out);
    if (st != GP_OK)
        return st;
    read_biases(&r, fam, out);
    read_moe(&r, fam, out);
    read_mla(&r, out);
    read_window(&r, fam, out);
    read_storage(&r, out);

    if (r.status != GP_OK)
        return r.status;
    st = gp_model_validate(out, err);
    if (st) {
        gpi_error_set_path(err, name);
        if (err) {
            char msg[GP_ERROR_MSG_MAX + GP_ERROR_PATH_MAX + 8];
            snprintf(msg, sizeof msg, "%s: %s", name, err->msg);
            gpi_strlcpy(err->msg, msg, sizeof err->msg);
        }
    }
    return st;
}

/* What a config.json may hold: the largest published ones (id2label tables of 21,843 ImageNet
 * classes, per-module quantization lists) stay far below; Jansson's tree of the limit is
 * about 40 MB at most (docs/reliability.md, "Files"). */
static const gpi_json_limits config_limits = {64, (size_t)1 << 18, (size_t)1 << 14};

static gp_status too_large(gp_error *err, const char *name, double bytes)
{
    char b[48], lim[48];
    gpi_format_bytes(b, sizeof b, bytes);
    gpi_format_bytes(lim, sizeof lim, (double)GPI_MAX_CONFIG_BYTES);
    gpi_error_set_path(err, name);
    return gpi_fail(err, GP_ELIMIT, "%s: a %s file is too large for a config.json (the limit is %s, %u bytes)", name, b,
                    lim, GPI_MAX_CONFIG_BYTES);
}

gp_status gp_model_from_hf_config_text(const char *text, size_t len, const char *name, gp_model *out, gp_error *err)
{
    gp_error_clear(err);
    if (!name)
        name = "config.json";
    if (len > GPI_MAX_CONFIG_BYTES)
        return too_large(err, name, (double)len);
    /* Bound Jansson's tree before it is built (a 16 MiB `[{},{},...]` took 1.26 GB); a
     * structural error is left to Jansson, which reports its line and column. */
    gpi_json_counts counts;
    gp_error scan_err;
    gp_error_clear(&scan_err);
    if (gpi_json_scan(text, len, &config_limits, &counts, &scan_err) == GP_ELIMIT) {
        gpi_error_set_path(err, name);
        if (err)
            err->offset = scan_err.offset;
        return gpi_fail(err, GP_ELIMIT,
                        "%s: %s: a config.json may nest %d deep and hold %zu values and keys and %zu objects and "
                        "arrays",
                        name, scan_err.msg, config_limits.max_depth, config_limits.max_items,
                        config_limits.max_containers);
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (err) {
            gpi_error_set_path(err, name);
            err->line = jerr.line;
            err->column = jerr.column;
            err->offset = jerr.position;
        }
        return gpi_fail(err, GP_EPARSE, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
    }
    gp_status st = gpi_model_from_hf_json(root, name, out, err);
    json_decref(root);
    if (st == GP_OK)
        gpi_strlcpy(out->source, name, sizeof out->source);
    return st;
}

gp_status gp_model_from_hf_config_file(const char *path, gp_model *out, gp_error *err)
{
    gp_error_clear(err);
    uint8_t *buf;
    size_t len;
    uint64_t size;
    gp_status st = gpi_read_file_prefix(path, GPI_MAX_CONFIG_BYTES + 1, &buf, &len, &size, err);
    if (st)
        return st;
    if (size > GPI_MAX_CONFIG_BYTES) { /* the file's real size in the message, not the bytes read */
        free(buf);
        return too_large(err, path, (double)size);
    }
    st = gp_model_from_hf_config_text((const char *)buf, len, path, out, err);
    free(buf);
    if (st == GP_OK) {
        /* id: the folder holding config.json, else the file name */
        const char *slash = strrchr(path, '/');
        char dir[GP_NAME_MAX];
        if (slash && gpi_strcaseeq(slash + 1, "config.json") && slash != path) {
            size_t n = (size_t)(slash - path);
            if (n >= sizeof dir)
                n = sizeof dir - 1;
            memcpy(dir, path, n);
            dir[n] = '\0';
            const char *base = strrchr(dir, '/');
            gpi_strlcpy(out->id, base ? base + 1 : dir, sizeof out->id);
        } else
            gpi_strlcpy(out->id, slash ? slash + 1 : path, sizeof out->id);
        gpi_strlcpy(out->name, out->id, sizeof out->name);
    }
    return st;
}
