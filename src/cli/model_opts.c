/* model_opts.c: --model and the explicit architecture flags, shared by every command. */
#include "cli.h"

#include <string.h>

const char cli_model_help[] =
    "model:\n"
    "  --model X            catalog id/alias/HF repo (llama-3.1-70b), a config.json, a model\n"
    "                       folder (config.json + *.safetensors headers) or a .gguf file\n"
    "  --layers N --hidden N --heads N --kv-heads N --head-dim N --ffn N --vocab N\n"
    "  --experts N --experts-active N --moe-ffn N --shared-experts N --tied-embeddings[=0|1]\n"
    "                       explicit architecture, alone or overriding fields of --model\n";

void cli_model_opts_init(cli_model_opts *o)
{
    memset(o, 0, sizeof *o);
    o->layers = o->hidden = o->heads = o->kv_heads = o->head_dim = o->ffn = o->vocab = -1;
    o->experts = o->experts_active = o->moe_ffn = o->shared_experts = -1;
    o->tied = -1;
}

int cli_model_opt(cli_common *common, const char *cmd, int opt, const char *arg, cli_model_opts *o)
{
    static const struct { int opt; const char *flag; size_t offset; int64_t min; } fields[] = {
        {1001, "layers", offsetof(cli_model_opts, layers), 1},
        {1002, "hidden", offsetof(cli_model_opts, hidden), 1},
        {1003, "heads", offsetof(cli_model_opts, heads), 1},
        {1004, "kv-heads", offsetof(cli_model_opts, kv_heads), 1},
        {1005, "head-dim", offsetof(cli_model_opts, head_dim), 1},
        {1006, "ffn", offsetof(cli_model_opts, ffn), 0},
        {1007, "vocab", offsetof(cli_model_opts, vocab), 1},
        {1008, "experts", offsetof(cli_model_opts, experts), 0},
        {1009, "experts-active", offsetof(cli_model_opts, experts_active), 0},
        {1010, "moe-ffn", offsetof(cli_model_opts, moe_ffn), 0},
        {1011, "shared-experts", offsetof(cli_model_opts, shared_experts), 0},
    };
    if (opt == 'm') {
        o->spec = arg;
        return 1;
    }
    if (opt == 1012) {
        o->tied = !arg || strcmp(arg, "1") == 0 || strcmp(arg, "true") == 0;
        if (arg && !o->tied && strcmp(arg, "0") && strcmp(arg, "false")) {
            cli_usage_error(common, cmd, "--tied-embeddings takes 0 or 1, not '%s'", arg);
            return -1;
        }
        o->any_override = 1;
        return 1;
    }
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i].opt == opt) {
            int64_t *dst = (int64_t *)((char *)o + fields[i].offset);
            if (cli_parse_i64(common, cmd, fields[i].flag, arg, fields[i].min, (int64_t)1 << 40, dst))
                return -1;
            o->any_override = 1;
            return 1;
        }
    }
    return 0;
}

int cli_model_build(const char *cmd, cli_model_opts *o, cli_common *common, gp_model *m)
{
    gp_error err;
    memset(m, 0, sizeof *m);
    if (o->spec) {
        gp_catalog *cat = cli_catalog(common);
        if (!cat)
            return EXIT_INPUT;
        if (gp_model_resolve(cat, o->spec, m, &err) != GP_OK)
            return cli_error(common, &err);
    } else if (common->model) { /* the web API's inline config.json */
        *m = *common->model;
    } else if (!o->any_override) {
        return cli_usage_error(common, cmd, "which model? give --model X, or the architecture with --layers, --hidden, --heads, --ffn and --vocab");
    } else {
        m->norms_per_layer = 2;
        m->dtype = GP_DTYPE_BF16;
        m->origin = GP_ORIGIN_FLAGS;
        snprintf(m->id, sizeof m->id, "custom");
        snprintf(m->name, sizeof m->name, "custom model (from flags)");
        snprintf(m->model_type, sizeof m->model_type, "custom");
        snprintf(m->source, sizeof m->source, "flags");
    }
    if (!o->any_override)
        return EXIT_OK;
    int default_head_dim = m->heads > 0 && m->head_dim == m->hidden / m->heads;
    int default_kv = m->kv_heads == m->heads;
    if (o->layers >= 0) m->layers = o->layers;
    if (o->hidden >= 0) m->hidden = o->hidden;
    if (o->heads >= 0) m->heads = o->heads;
    if (o->ffn >= 0) m->ffn = o->ffn;
    if (o->vocab >= 0) m->vocab = o->vocab;
    if (o->experts >= 0) m->experts = o->experts;
    if (o->experts_active >= 0) m->experts_active = o->experts_active;
    if (o->moe_ffn >= 0) m->moe_ffn = o->moe_ffn;
    if (o->shared_experts >= 0) m->shared_experts = o->shared_experts;
    if (o->tied >= 0) m->tied_embeddings = o->tied;
    if (o->kv_heads >= 0) m->kv_heads = o->kv_heads;
    else if (default_kv || m->kv_heads == 0) m->kv_heads = m->heads;
    if (o->head_dim >= 0) m->head_dim = o->head_dim;
    else if ((default_head_dim || m->head_dim == 0) && m->heads > 0) m->head_dim = m->hidden / m->heads;
    if (m->experts > 0 && m->moe_ffn == 0) m->moe_ffn = m->ffn;
    /* File-exact tallies describe the file, not the edited architecture. */
    if (m->has_exact) {
        m->has_exact = 0;
        snprintf(m->notes + strnlen(m->notes, sizeof m->notes),
                 sizeof m->notes - strnlen(m->notes, sizeof m->notes),
                 "%sarchitecture edited by flags: exact counts from the files no longer apply",
                 m->notes[0] ? "\n" : "");
    }
    if (gp_model_validate(m, &err) != GP_OK)
        return cli_error(common, &err);
    return EXIT_OK;
}

int cli_model_and_gpu(const char *cmd, cli_model_opts *mo, const char *gpu_name, cli_common *common,
                      gp_model *m, gp_catalog **cat, const gp_gpu **gpu)
{
    int rc = cli_model_build(cmd, mo, common, m);
    if (rc)
        return rc;
    *cat = cli_catalog(common);
    if (!*cat)
        return EXIT_INPUT;
    gp_error err;
    if (gp_catalog_find_gpu(*cat, gpu_name, gpu, &err) != GP_OK)
        return cli_error(common, &err);
    return EXIT_OK;
}
