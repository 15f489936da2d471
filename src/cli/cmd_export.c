/*
 * cmd_export.c: `gpuplan export --engine E [--out DIR]`: the command lines and config files
 * that run a planned layout on a serving or training engine (gp_export_render). Layout
 * dimensions not given are filled with what gpuplan recommends: gp_fit's smallest layout
 * (inference) or the best gp_train_search layout (training).
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char export_help[] =
    "usage: gpuplan export --engine E --model X [--out DIR] [workload and layout flags] [--json]\n\n"
    "Launch files for a layout on an engine: serving (vllm, sglang, tgi, llamacpp, trtllm; --task infer)\n"
    "or training (deepspeed, megatron, torchrun-fsdp, slurm; --task train|lora|qlora). Only the\n"
    "engines' real flags and keys are written (docs/export.md). Layout dimensions not given come\n"
    "from gpuplan: the smallest fitting layout (inference) or the best searched one (training).\n\n"
    "export:\n"
    "  --engine E           vllm, sglang, tgi, llamacpp, trtllm, deepspeed, megatron, torchrun-fsdp, slurm\n"
    "  --out DIR            write the files into DIR (created if missing); default: print to stdout\n"
    "  --model-path P       what the engine loads (default: the model's HF repo, folder or .gguf)\n"
    "  --port N             serving port (default: the engine's own)\n"
    "  --max-num-seqs N     serving: concurrent sequences the engine schedules (256)\n"
    "  --gpus N             training: GPUs to search a layout for (default: tp x pp x dp x cp given)\n"
    "  --gpus-per-node N    GPUs per node (default: the GPU's node, 8 for HGX)\n"
    "  --data PATH          training: dataset path (Megatron: indexed dataset prefix)\n"
    "  --tokens N           training: tokens to train (sets the iteration count)\n"
    "  --time HH:MM:SS      Slurm time limit (24:00:00)\n"
    "  --job-name NAME      Slurm job name (gpuplan)\n"
    "  --replicas N         serving: copies behind one endpoint; > 1 adds deploy.json (Kubernetes)\n"
    "                       and serve.sbatch (Slurm array)\n"
    "  --api-key-env NAME   serving: environment variable holding the API key (API_KEY; \"\": none)\n"
    "  --audit-log          serving: log every request\n\n";

typedef struct export_opts {
    const char *engine_name;
    gp_export_engine engine;
    const char *out_dir;
    const char *model_path;
    const char *data;
    const char *time_limit;
    const char *job_name;
    int64_t port, gpus, gpus_per_node, replicas;
    const char *api_key_env;
    int audit_log;
    double tokens;
    int zero_given, recompute_given;
} export_opts;

static FILE *errf(cli_common *common)
{
    return common->err ? common->err : stderr;
}

static int write_files(cli_common *common, const char *dir, const gp_export_files *f)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(errf(common), "gpuplan: cannot create '%s': %s\n", dir, strerror(errno));
        return EXIT_INPUT;
    }
    for (int i = 0; i < f->n; i++) {
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/%s", dir, f->files[i].name);
        if (n < 0 || (size_t)n >= sizeof path) {
            fprintf(errf(common), "gpuplan: path too long under '%s'\n", dir);
            return EXIT_INPUT;
        }
        FILE *fp = fopen(path, "w");
        if (!fp) {
            fprintf(errf(common), "gpuplan: cannot write '%s': %s\n", path, strerror(errno));
            return EXIT_INPUT;
        }
        size_t wr = fwrite(f->files[i].content, 1, f->files[i].len, fp);
        int bad = wr != f->files[i].len;
        if (fclose(fp) != 0)
            bad = 1;
        if (bad) {
            fprintf(errf(common), "gpuplan: error writing '%s'\n", path);
            return EXIT_INPUT;
        }
        if (f->files[i].executable)
            chmod(path, 0755);
        if (!common->json)
            printf("wrote %s\n", path);
    }
    return EXIT_OK;
}

/* Inference: the given layout if TP and PP are both given, else gp_fit's smallest. */
static int infer_layout(cli_common *common, const gp_model *m, const gp_gpu *gpu, cli_workload_opts *wo,
                        gp_layout *l)
{
    gp_layout_defaults(l);
    const gp_layout *g = &wo->given;
    if (g->tp > 0 && g->pp > 0) {
        l->tp = g->tp, l->pp = g->pp;
        if (g->dp > 0) l->dp = g->dp;
        if (g->ep > 0) l->ep = g->ep;
        if (g->cp > 0) l->cp = g->cp;
        return EXIT_OK;
    }
    gp_fit_result *r = malloc(sizeof *r);
    if (!r) {
        fprintf(errf(common), "gpuplan: out of memory\n");
        return EXIT_INPUT;
    }
    gp_error err;
    if (gp_fit(cli_catalog(common), m, gpu, &wo->w, g, r, &err) != GP_OK) {
        free(r);
        return cli_error(common, &err);
    }
    if (!r->fits) {
        fprintf(errf(common), "gpuplan: %s does not fit on any layout of %s up to the search limit\n", m->id, gpu->id);
        for (int i = 0; i < r->n_reasons; i++)
            fprintf(errf(common), "  - %s\n", r->reasons[i].message);
        free(r);
        return EXIT_INPUT;
    }
    *l = r->min_layout;
    if (g->dp > 0) l->dp = g->dp;
    free(r);
    return EXIT_OK;
}

/* Training: the given layout if every dimension is given, else the best searched one. */
static int train_layout(cli_common *common, const gp_model *m, const gp_gpu *gpu, const gp_cluster *cl,
                        cli_workload_opts *wo, const export_opts *eo, gp_layout *l)
{
    const gp_layout *g = &wo->given;
    int64_t prod = (int64_t)(g->tp > 0 ? g->tp : 1) * (g->pp > 0 ? g->pp : 1) * (g->dp > 0 ? g->dp : 1) *
                   (g->cp > 0 ? g->cp : 1);
    if (g->tp > 0 && g->pp > 0 && g->dp > 0 && (eo->gpus == 0 || eo->gpus == prod)) {
        *l = *g;
        if (l->cp < 1) l->cp = 1;
        if (l->ep < 1) l->ep = 1;
        if (l->virtual_stages < 1) l->virtual_stages = 1;
        if (l->micro_batch < 1) l->micro_batch = 1;
        if (l->global_batch < 1) l->global_batch = (int64_t)l->dp * l->micro_batch;
        if (l->tp > 1) l->sequence_parallel = 1;
        return EXIT_OK;
    }
    int64_t gpus = eo->gpus;
    if (gpus == 0)
        return cli_usage_error(common, "export", "training: give --gpus N (or --tp, --pp and --dp) for the layout");
    if (gpus % prod != 0)
        return cli_usage_error(common, "export", "the given degrees (tp x pp x dp x cp = %lld) do not divide --gpus %lld",
                               (long long)prod, (long long)gpus);
    gp_train_search_opts so;
    gp_train_search_defaults(&so);
    so.work = cli_work(common);
    so.gpus = (int)gpus;
    so.train_tokens = eo->tokens;
    so.fixed = *g;
    so.fix_zero = eo->zero_given;
    so.fix_recompute = eo->recompute_given;
    so.top_k = 1;
    gp_train_search_result *res = malloc(sizeof *res);
    if (!res) {
        fprintf(errf(common), "gpuplan: out of memory\n");
        return EXIT_INPUT;
    }
    gp_error err;
    if (gp_train_search(m, gpu, cl, &wo->w, &so, res, &err) != GP_OK) {
        free(res);
        return cli_error(common, &err);
    }
    if (res->n_top == 0) {
        fprintf(errf(common), "gpuplan: no layout of %lld x %s fits %s\n", (long long)gpus, gpu->id, m->id);
        for (int i = 0; i < res->n_reasons; i++)
            fprintf(errf(common), "  - %s\n", res->reasons[i].message);
        free(res);
        return EXIT_INPUT;
    }
    *l = res->top[0].layout;
    free(res);
    return EXIT_OK;
}

int cmd_export(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS, CLI_MODEL_OPTS, CLI_WORKLOAD_OPTS,
                                         {"out", required_argument, NULL, 5001},
                                         {"model-path", required_argument, NULL, 5002},
                                         {"port", required_argument, NULL, 5003},
                                         {"max-num-seqs", required_argument, NULL, 5004},
                                         {"gpus", required_argument, NULL, 5005},
                                         {"gpus-per-node", required_argument, NULL, 5006},
                                         {"data", required_argument, NULL, 5007},
                                         {"tokens", required_argument, NULL, 5008},
                                         {"time", required_argument, NULL, 5009},
                                         {"job-name", required_argument, NULL, 5010},
                                         {"replicas", required_argument, NULL, 5011},
                                         {"api-key-env", required_argument, NULL, 5012},
                                         {"audit-log", no_argument, NULL, 5013},
                                         {0, 0, 0, 0}};
    cli_model_opts mo;
    cli_workload_opts wo;
    cli_model_opts_init(&mo);
    cli_workload_opts_init(&wo);
    export_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.engine = GP_EXPORT_COUNT;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hm:g:", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s%s%s  --json               machine-readable output\n", export_help, cli_model_help,
                   cli_workload_help);
            return EXIT_OK;
        }
        if (cli_common_opt(c, optarg, common))
            continue;
        switch (c) {
        case 2011: /* --engine: the export target (a superset of the accounting engines) */
            eo.engine_name = optarg;
            eo.engine = gp_export_engine_parse(optarg);
            if (eo.engine == GP_EXPORT_COUNT)
                return cli_usage_error(common, "export",
                                       "unknown engine '%s' (vllm, sglang, tgi, llamacpp, trtllm, deepspeed, "
                                       "megatron, torchrun-fsdp, slurm)",
                                       optarg);
            /* the fit keeps generic accounting (engine none): the layout is the one 'gpuplan fit'
             * recommends for the same flags */
            continue;
        case 5001: eo.out_dir = optarg; continue;
        case 5002: eo.model_path = optarg; continue;
        case 5003: if (cli_parse_i64(common, "export", "port", optarg, 1, 65535, &eo.port)) return EXIT_USAGE; continue;
        case 5004: if (cli_parse_i64(common, "export", "max-num-seqs", optarg, 1, 1 << 20, &wo.w.max_num_seqs)) return EXIT_USAGE; continue;
        case 5005: if (cli_parse_i64(common, "export", "gpus", optarg, 1, 1 << 20, &eo.gpus)) return EXIT_USAGE; continue;
        case 5006: if (cli_parse_i64(common, "export", "gpus-per-node", optarg, 1, 4096, &eo.gpus_per_node)) return EXIT_USAGE; continue;
        case 5007: eo.data = optarg; continue;
        case 5008:
            if (cli_parse_tokens(optarg, &eo.tokens))
                return cli_usage_error(common, "export", "--tokens takes a count such as 15e12, 15T, 300B, not '%s'", optarg);
            continue;
        case 5009: eo.time_limit = optarg; continue;
        case 5010: eo.job_name = optarg; continue;
        case 5011: if (cli_parse_i64(common, "export", "replicas", optarg, 1, 4096, &eo.replicas)) return EXIT_USAGE; continue;
        case 5012: eo.api_key_env = optarg; continue;
        case 5013: eo.audit_log = 1; continue;
        case 2106: eo.zero_given = 1; break;
        case 2109: eo.recompute_given = 1; break;
        default: break;
        }
        int r = cli_model_opt(common, "export", c, optarg, &mo);
        if (r == 0)
            r = cli_workload_opt(common, "export", c, optarg, &wo);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return cli_usage_error(common, "export", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return cli_usage_error(common, "export", "unexpected argument '%s'", argv[optind]);
    if (eo.engine == GP_EXPORT_COUNT)
        return cli_usage_error(common, "export", "give --engine E (vllm, sglang, tgi, llamacpp, trtllm, deepspeed, "
                                                 "megatron, torchrun-fsdp, slurm)");
    wo.w.task = gp_export_engine_task(eo.engine, wo.w.task); /* megatron, deepspeed, ... train */
    int infer = wo.w.task == GP_TASK_INFER;
    gp_export_kind kind = gp_export_engine_kind(eo.engine);
    if (kind == GP_EXPORT_KIND_TRAIN && infer)
        return cli_usage_error(common, "export",
                               "%s launches training, but the task is infer: add --task train|lora|qlora, or export "
                               "inference with vllm, sglang, tgi, llamacpp or trtllm",
                               gp_export_engine_name(eo.engine));
    if (kind == GP_EXPORT_KIND_SERVE && !infer)
        return cli_usage_error(common, "export",
                               "%s is a serving engine, but the task is %s: export training with deepspeed, megatron, "
                               "torchrun-fsdp or slurm",
                               gp_export_engine_name(eo.engine), gp_task_name(wo.w.task));

    gp_model m;
    gp_catalog *cat;
    const gp_gpu *gpu;
    int rc = cli_model_and_gpu("export", &mo, wo.gpu, common, &m, &cat, &gpu);
    if (rc)
        return rc;
    gp_error err;
    gp_cluster cl;
    gp_cluster_defaults(&cl, cat, gpu, NULL);
    if (eo.gpus_per_node > 0)
        cl.gpus_per_node = (int)eo.gpus_per_node;

    gp_layout l;
    rc = infer ? infer_layout(common, &m, gpu, &wo, &l) : train_layout(common, &m, gpu, &cl, &wo, &eo, &l);
    if (rc)
        return rc;

    gp_export_job job;
    gp_export_job_defaults(&job);
    job.model = &m;
    job.model_path = eo.model_path;
    job.gpu = gpu;
    job.w = &wo.w;
    job.l = &l;
    job.gpus_per_node = cl.gpus_per_node;
    job.port = (int)eo.port;
    job.train_tokens = eo.tokens;
    if (eo.data)
        snprintf(job.train_data, sizeof job.train_data, "%s", eo.data);
    job.job_name = eo.job_name;
    job.time_limit = eo.time_limit;
    job.replicas = (int)eo.replicas;
    job.api_key_env = eo.api_key_env;
    job.audit_log = eo.audit_log;

    gp_export_files *f = malloc(sizeof *f);
    if (!f) {
        fprintf(errf(common), "gpuplan: out of memory\n");
        return EXIT_INPUT;
    }
    if (gp_export_render(eo.engine, &job, f, &err) != GP_OK) {
        free(f);
        return cli_error(common, &err);
    }
    rc = EXIT_OK;
    if (eo.out_dir)
        rc = write_files(common, eo.out_dir, f);
    if (rc == EXIT_OK && common->json) {
        json_t *files = json_array(), *notes = json_array();
        for (int i = 0; i < f->n; i++)
            json_array_append_new(files, json_pack("{ss ss sb}", "name", f->files[i].name, "content",
                                                   f->files[i].content, "executable", f->files[i].executable));
        char *save = NULL;
        for (char *line = strtok_r(f->notes, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            json_array_append_new(notes, json_string(line));
        json_t *o = json_pack("{ss ss ss ss ss* si si si si si si so so}", "engine", gp_export_engine_name(eo.engine),
                              "engine_version", gp_export_engine_version(eo.engine), "model", m.id, "gpu", gpu->id,
                              "out", eo.out_dir, "tp", l.tp, "pp", l.pp, "dp", l.dp, "cp", l.cp > 0 ? l.cp : 1, "ep",
                              l.ep > 0 ? l.ep : 1, "gpus", gp_layout_gpus(&l), "files", files, "notes", notes);
        json_object_set_new(o, "command", json_string(f->command));
        rc = cli_print_json(common, o);
    } else if (rc == EXIT_OK) {
        if (!eo.out_dir)
            for (int i = 0; i < f->n; i++) {
                if (f->n > 1)
                    printf("%s==> %s <==\n", i ? "\n" : "", f->files[i].name);
                fwrite(f->files[i].content, 1, f->files[i].len, stdout);
            }
        char *save = NULL;
        for (char *line = strtok_r(f->notes, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            fprintf(errf(common), "note: %s\n", line);
    }
    gp_export_files_free(f);
    free(f);
    return rc;
}
