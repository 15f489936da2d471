/*
 * cmd_train.c: `gpuplan train`: training step time, TFLOP/s, MFU and time to train for a
 * layout, or the search over every valid layout of N GPUs (or the smallest N meeting a
 * deadline), with the top layouts, why each wins, the Pareto front and a scaling table.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char train_help[] =
    "usage: gpuplan train --model X [--gpu ID] (--gpus N | --deadline D --tokens T) [flags] [--json]\n\n"
    "Step time, tokens/s, TFLOP/s per GPU, MFU/HFU and time to train. Layout dimensions given\n"
    "(--tp --pp --dp --cp --ep --zero --recompute --micro-batch --virtual-stages) are fixed and the\n"
    "rest searched over every valid layout; with --tp --pp --dp --micro-batch --zero --recompute\n"
    "all given, that one layout is evaluated. Prints the best layout, its step-time breakdown,\n"
    "the top layouts with why each ranks where it does, and the Pareto front of step time vs\n"
    "memory per GPU.\n\n"
    "cluster and run:\n"
    "  --gpus N             GPUs to use (default with all of tp/pp/dp given: their product)\n"
    "  --gpus-per-node N    GPUs sharing the scale-up link (default: the GPU's NVLink domain, 8)\n"
    "  --intra-node L       link inside a node: nvlink (the GPU's own), pcie, or a link id\n"
    "  --inter-node L       link between nodes: ib-ndr (default), ib-hdr, ib-xdr, roce-400, ...\n"
    "  --framework F        megatron (default: Megatron-Core/NeMo), fsdp (FSDP2/torchtitan), deepspeed\n"
    "  --tokens N           tokens to train: 15e12, 15T, 300B, 2.5M (fills time to train)\n"
    "  --deadline D         without --gpus: the smallest GPU count finishing --tokens within D\n"
    "                       (30d, 12h, 90m, 2w, or seconds)\n"
    "  --max-gpus N         upper bound for the deadline search (default 65536)\n"
    "  --allow-tp-across-nodes  let the search put TP groups over the inter-node network\n"
    "ranking and output:\n"
    "  --top N              layouts to list (default 5, at most 32)\n"
    "  --rank R             time (default), cost, tokens-per-dollar\n"
    "  --price-per-gpu-hour X   price of one GPU-hour (cost and tokens per dollar)\n"
    "  --scaling            throughput and efficiency from 1 GPU up to N (powers of two)\n";

typedef struct train_opts {
    int64_t gpus, gpus_per_node, max_gpus, top;
    const char *intra, *inter, *framework;
    double tokens, deadline_s, price;
    gp_rank_by rank;
    int scaling, allow_tp_across;
    int zero_given, recompute_given;
} train_opts;

static const char *fmt_duration(char *buf, size_t n, double s)
{
    if (s <= 0)
        snprintf(buf, n, "-");
    else if (s >= 2 * 86400.0)
        snprintf(buf, n, "%.1f days", s / 86400.0);
    else if (s >= 2 * 3600.0)
        snprintf(buf, n, "%.1f hours", s / 3600.0);
    else if (s >= 120.0)
        snprintf(buf, n, "%.1f min", s / 60.0);
    else
        snprintf(buf, n, "%.3g s", s);
    return buf;
}

static const char *rank_name(gp_rank_by r)
{
    return r == GP_RANK_COST ? "cost" : r == GP_RANK_TOKENS_PER_DOLLAR ? "tokens-per-dollar" : "time";
}

/* ---- JSON -------------------------------------------------------------------------- */

static json_t *layout_json(const gp_layout *l)
{
    return json_pack("{si si si si si si sI ss sb si sI si}", "tp", l->tp, "pp", l->pp, "dp", l->dp, "cp", l->cp,
                     "ep", l->ep, "zero", l->zero, "micro_batch", (json_int_t)l->micro_batch, "recompute",
                     gp_recompute_name(l->recompute), "sequence_parallel", l->sequence_parallel, "virtual_stages",
                     l->virtual_stages, "global_batch", (json_int_t)l->global_batch, "gpus", gp_layout_gpus(l));
}

static json_t *perf_json(const gp_train_perf *p, double cost)
{
    json_t *b = json_pack("{sf sf sf sf sf sf sf sf sf}", "compute_s", p->compute_s, "memory_s", p->memory_s,
                          "tp_comm_s", p->tp_comm_s, "cp_comm_s", p->cp_comm_s, "ep_comm_s", p->ep_comm_s,
                          "pp_comm_s", p->pp_comm_s, "dp_comm_s", p->dp_comm_s, "bubble_s", p->bubble_s,
                          "optimizer_s", p->optimizer_s);
    json_t *j = json_pack("{sf sf sf sf sf sf sf sf sf sf sf sI so sf}", "step_time_s", p->step_time_s, "tokens_per_s",
                     p->tokens_per_s, "tokens_per_s_per_gpu", p->tokens_per_s_per_gpu, "model_tflops_per_gpu",
                     p->model_tflops_per_gpu, "hw_tflops_per_gpu", p->hw_tflops_per_gpu, "mfu", p->mfu, "hfu", p->hfu,
                     "time_to_train_s", p->time_to_train_s, "model_flops_per_token", p->model_flops_per_token,
                     "hw_flops_per_token", p->hw_flops_per_token, "bubble_fraction",
                     p->step_time_s > 0 ? p->bubble_s / p->step_time_s : 0.0, "micro_batches",
                     (json_int_t)p->micro_batches, "breakdown", b, "cost", cost);
    json_t *o = json_pack("{sf sf sf sf sf sf sf sf}", "step_time_s_low", p->step_time_s_low, "step_time_s_high",
                          p->step_time_s_high, "tokens_per_s_low", p->tokens_per_s_low, "tokens_per_s_high",
                          p->tokens_per_s_high, "model_tflops_per_gpu_low", p->model_tflops_per_gpu_low,
                          "model_tflops_per_gpu_high", p->model_tflops_per_gpu_high, "time_to_train_s_low",
                          p->time_to_train_s_low, "time_to_train_s_high", p->time_to_train_s_high);
    json_object_update(j, o);
    json_decref(o);
    return j;
}

static json_t *memory_json(const gp_memory *m)
{
    json_t *c = json_pack("{sI sI sI sI sI}", "weights", (json_int_t)m->weights, "activations",
                          (json_int_t)m->activations, "gradients", (json_int_t)m->gradients, "optimizer",
                          (json_int_t)m->optimizer, "overhead", (json_int_t)m->overhead);
    return json_pack("{sI sI sI sb so sI}", "per_gpu_bytes", (json_int_t)m->per_gpu, "capacity_bytes",
                     (json_int_t)m->capacity, "headroom_bytes", (json_int_t)m->headroom, "fits", m->fits,
                     "components", c, "cpu_offload_bytes", (json_int_t)m->cpu_offload);
}

static json_t *candidate_json(const gp_train_candidate *c, int rank)
{
    return json_pack("{si so so so sf ss}", "rank", rank, "layout", layout_json(&c->layout), "perf",
                     perf_json(&c->perf, c->cost), "memory", memory_json(&c->memory), "cost", c->cost, "why", c->why);
}

/* ---- text -------------------------------------------------------------------------- */

static void print_layout_line(const gp_layout *l)
{
    printf("TP %d x PP %d", l->tp, l->pp);
    if (l->virtual_stages > 1)
        printf(" (%d interleaved)", l->virtual_stages);
    if (l->cp > 1)
        printf(" x CP %d", l->cp);
    printf(" x DP %d", l->dp);
    if (l->ep > 1)
        printf(", EP %d", l->ep);
    printf(", ZeRO-%d, micro-batch %lld, recompute %s%s", l->zero, (long long)l->micro_batch,
           gp_recompute_name(l->recompute), l->sequence_parallel && l->tp > 1 ? ", sequence parallel" : "");
}

static void print_breakdown(const gp_train_perf *p)
{
    static const char *const names[9] = {"compute", "memory-bound", "TP comm", "CP comm", "EP comm",
                                         "PP comm", "DP comm", "bubble", "optimizer"};
    double v[9] = {p->compute_s, p->memory_s, p->tp_comm_s, p->cp_comm_s, p->ep_comm_s,
                   p->pp_comm_s, p->dp_comm_s, p->bubble_s, p->optimizer_s};
    double total = p->step_time_s > 0 ? p->step_time_s : 1;
    for (int i = 0; i < 9; i++) {
        int n = (int)(v[i] / total * 50.0 + 0.5);
        printf("    %-13s %9.4f s %5.1f%%  ", names[i], v[i], 100.0 * v[i] / total);
        for (int k = 0; k < n; k++)
            fputc('#', stdout);
        if (!n)
            fputc(v[i] > 0 ? '.' : ' ', stdout);
        fputc('\n', stdout);
    }
}

static void print_result(const gp_model *m, const gp_train_candidate *best, const train_opts *to, int fixed)
{
    const gp_train_perf *p = &best->perf;
    char a[64], b[64];
    printf("%s: ", fixed ? "Layout" : "Best layout");
    print_layout_line(&best->layout);
    printf("\n  step time %.4g s (%lld micro-batches per replica)\n", p->step_time_s, (long long)p->micro_batches);
    print_breakdown(p);
    printf("  throughput     %s tokens/s, %s tokens/s per GPU\n", cli_fmt_si(a, sizeof a, p->tokens_per_s),
           cli_fmt_si(b, sizeof b, p->tokens_per_s_per_gpu));
    printf("  likely range   %s-%s tokens/s (10th-90th percentile of the error on published runs)\n",
           cli_fmt_si(a, sizeof a, p->tokens_per_s_low), cli_fmt_si(b, sizeof b, p->tokens_per_s_high));
    printf("  TFLOP/s/GPU    %.1f model (MFU %.1f%%), %.1f hardware (HFU %.1f%%)\n", p->model_tflops_per_gpu,
           100.0 * p->mfu, p->hw_tflops_per_gpu, 100.0 * p->hfu);
    if (to->tokens > 0)
    {
        char lo[64], hi[64];
        printf("  time to train  %s tokens: %s (likely %s-%s)\n", cli_fmt_si(a, sizeof a, to->tokens),
               fmt_duration(b, sizeof b, p->time_to_train_s), fmt_duration(lo, sizeof lo, p->time_to_train_s_low),
               fmt_duration(hi, sizeof hi, p->time_to_train_s_high));
    }
    if (to->price > 0)
        printf("  cost           %.4g at %.4g per GPU-hour (%s)\n", best->cost, to->price,
               to->tokens > 0 ? "whole run" : "per step");
    printf("  memory per GPU %.1f GB of %.1f GB (%s)\n", (double)best->memory.per_gpu / 1e9,
           (double)best->memory.capacity / 1e9, best->memory.fits ? "fits" : "does NOT fit");
    (void)m;
    if (best->why[0])
        printf("  why: %s\n", best->why);
}

static void print_table_header(void)
{
    printf("  %3s %4s %4s %3s %5s %3s %4s %4s %2s %-9s %9s %10s %6s %7s\n", "#", "TP", "PP", "CP", "DP", "EP", "ZeRO",
           "mb", "v", "recompute", "step s", "tok/s/GPU", "MFU", "mem GB");
}

static void print_table_row(int i, const gp_train_candidate *c)
{
    const gp_layout *l = &c->layout;
    printf("  %3d %4d %4d %3d %5d %3d %4d %4lld %2d %-9s %9.4g %10.1f %5.1f%% %7.1f\n", i, l->tp, l->pp, l->cp, l->dp,
           l->ep, l->zero, (long long)l->micro_batch, l->virtual_stages, gp_recompute_name(l->recompute),
           c->perf.step_time_s, c->perf.tokens_per_s_per_gpu, 100.0 * c->perf.mfu, (double)c->memory.per_gpu / 1e9);
}

/* ---- scaling ----------------------------------------------------------------------- */

typedef struct scale_row {
    int gpus, ok;
    gp_train_candidate best;
} scale_row;

#define MAX_SCALE_ROWS 24

static int run_scaling(const gp_model *m, const gp_gpu *gpu, const gp_cluster *c, const gp_workload *w,
                       const gp_train_search_opts *base, int n_max, scale_row *rows, gp_train_search_result *tmp,
                       gp_error *err)
{
    int n_rows = 0;
    for (int64_t n = 1; n_rows < MAX_SCALE_ROWS; n *= 2) {
        int g = n < n_max ? (int)n : n_max;
        gp_train_search_opts o = *base;
        o.gpus = g;
        o.top_k = 1;
        /* a fixed DP or product that does not divide this count: the row has no layout */
        int64_t prod = (int64_t)(o.fixed.tp > 0 ? o.fixed.tp : 1) * (o.fixed.pp > 0 ? o.fixed.pp : 1) *
                       (o.fixed.dp > 0 ? o.fixed.dp : 1) * (o.fixed.cp > 0 ? o.fixed.cp : 1);
        scale_row *r = &rows[n_rows++];
        memset(r, 0, sizeof *r);
        r->gpus = g;
        if (g % prod == 0) {
            if (gp_train_search(m, gpu, c, w, &o, tmp, err) != GP_OK)
                return -1;
            if (tmp->n_top > 0) {
                r->ok = 1;
                r->best = tmp->top[0];
            }
        }
        if (g == n_max)
            break;
    }
    return n_rows;
}

static json_t *scaling_json(const scale_row *rows, int n, const gp_cluster *c)
{
    json_t *a = json_array();
    double base = 0;
    int base_gpus = 0;
    for (int i = 0; i < n; i++) {
        const scale_row *r = &rows[i];
        if (r->ok && base == 0) {
            base = r->best.perf.tokens_per_s_per_gpu;
            base_gpus = r->gpus;
        }
        double eff = r->ok && base > 0 ? r->best.perf.tokens_per_s_per_gpu / base : 0.0;
        json_array_append_new(a, json_pack("{si so* sf sf sf sf sf si sb}", "gpus", r->gpus, "layout",
                                           r->ok ? layout_json(&r->best.layout) : NULL, "step_time_s",
                                           r->ok ? r->best.perf.step_time_s : 0.0, "tokens_per_s",
                                           r->ok ? r->best.perf.tokens_per_s : 0.0, "tokens_per_s_per_gpu",
                                           r->ok ? r->best.perf.tokens_per_s_per_gpu : 0.0, "mfu",
                                           r->ok ? r->best.perf.mfu : 0.0, "efficiency", eff, "baseline_gpus",
                                           base_gpus, "crosses_nodes", r->gpus > c->gpus_per_node));
    }
    return a;
}

static void print_scaling(const scale_row *rows, int n, const gp_cluster *c)
{
    char a[32], b[32];
    printf("\nScaling (best layout at each count; efficiency = tokens/s per GPU vs the smallest count that fits):\n");
    printf("  %6s  %-34s %12s %12s %6s %6s\n", "GPUs", "layout", "tokens/s", "tok/s/GPU", "MFU", "eff.");
    double base = 0;
    int said_node = 0, said_eff = 0;
    for (int i = 0; i < n; i++) {
        const scale_row *r = &rows[i];
        if (!r->ok) {
            printf("  %6d  %-34s\n", r->gpus, "(no layout fits)");
            continue;
        }
        const gp_layout *l = &r->best.layout;
        const gp_train_perf *p = &r->best.perf;
        if (base == 0)
            base = p->tokens_per_s_per_gpu;
        double eff = p->tokens_per_s_per_gpu / base;
        char lay[64];
        snprintf(lay, sizeof lay, "TP %d PP %d CP %d DP %d%s", l->tp, l->pp, l->cp, l->dp, l->zero ? " ZeRO" : "");
        if (l->zero)
            snprintf(lay + strlen(lay), sizeof lay - strlen(lay), "-%d", l->zero);
        printf("  %6d  %-34s %12s %12s %5.1f%% %5.1f%%", r->gpus, lay, cli_fmt_si(a, sizeof a, p->tokens_per_s),
               cli_fmt_si(b, sizeof b, p->tokens_per_s_per_gpu), 100.0 * p->mfu, 100.0 * eff);
        if (!said_node && r->gpus > c->gpus_per_node) {
            printf("  <- beyond one node: traffic crosses %s", c->inter_name);
            said_node = 1;
        } else if (!said_eff && eff < 0.8) {
            printf("  <- efficiency below 80%%: adding GPUs stops paying");
            said_eff = 1;
        }
        if (said_node == 1 && !said_eff && eff < 0.8) {
            printf(" (and efficiency below 80%%)");
            said_eff = 1;
        }
        if (said_node == 1)
            said_node = 2;
        printf("\n");
    }
}

/* ---- the command --------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int build_cluster(cli_common *common, const gp_gpu *gpu, const train_opts *to, gp_cluster *c)
{
    gp_catalog *cat = cli_catalog(common);
    gp_error err;
    const gp_link *inter = NULL, *intra = NULL;
    if (to->inter && gp_catalog_find_link(cat, to->inter, &inter, &err) != GP_OK)
        return cli_error(common, &err);
    if (to->inter && inter->kind != GP_LINK_SCALE_OUT)
        return cli_usage_error(common, "train", "--inter-node takes a network between nodes (ib-ndr, ib-hdr, roce-400, ...), not '%s'",
                               to->inter);
    gp_cluster_defaults(c, cat, gpu, inter);
    if (to->intra) {
        if (strcasecmp(to->intra, "nvlink") == 0) {
            intra = gp_catalog_gpu_link(cat, gpu);
            if (!intra || intra->kind != GP_LINK_SCALE_UP)
                return cli_usage_error(common, "train", "%s has no NVLink; use --intra-node pcie or a link id", gpu->id);
        } else if (strcasecmp(to->intra, "pcie") == 0) {
            char id[16];
            snprintf(id, sizeof id, "pcie%d", gpu->pcie_gen > 0 ? gpu->pcie_gen : 4);
            if (gp_catalog_find_link(cat, id, &intra, &err) != GP_OK)
                return cli_error(common, &err);
        } else if (gp_catalog_find_link(cat, to->intra, &intra, &err) != GP_OK)
            return cli_error(common, &err);
        if (intra->kind == GP_LINK_SCALE_OUT)
            return cli_usage_error(common, "train", "--intra-node takes a link inside a node (nvlink, pcie, ...), not '%s'", to->intra);
        gp_cluster_set_link(c, cat, intra, 0);
    }
    if (to->framework) {
        c->framework = gp_framework_parse(to->framework);
        if (c->framework == GP_FRAMEWORK_COUNT)
            return cli_usage_error(common, "train", "--framework takes megatron, fsdp or deepspeed, not '%s'", to->framework);
    }
    if (to->gpus_per_node > 0)
        c->gpus_per_node = (int)to->gpus_per_node;
    return EXIT_OK;
}

int cmd_train(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS, CLI_MODEL_OPTS, CLI_WORKLOAD_OPTS,
                                         {"gpus", required_argument, NULL, 4001},
                                         {"gpus-per-node", required_argument, NULL, 4002},
                                         {"intra-node", required_argument, NULL, 4003},
                                         {"inter-node", required_argument, NULL, 4004},
                                         {"framework", required_argument, NULL, 4090},
                                         {"tokens", required_argument, NULL, 4005},
                                         {"deadline", required_argument, NULL, 4006},
                                         {"top", required_argument, NULL, 4007},
                                         {"rank", required_argument, NULL, 4008},
                                         {"price-per-gpu-hour", required_argument, NULL, 4009},
                                         {"scaling", no_argument, NULL, 4010},
                                         {"allow-tp-across-nodes", no_argument, NULL, 4011},
                                         {"max-gpus", required_argument, NULL, 4012},
                                         {0, 0, 0, 0}};
    cli_model_opts mo;
    cli_workload_opts wo;
    cli_model_opts_init(&mo);
    cli_workload_opts_init(&wo);
    gp_workload_defaults(&wo.w, GP_TASK_TRAIN);
    train_opts to;
    memset(&to, 0, sizeof to);
    to.top = 5;
    to.max_gpus = 65536;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hm:g:", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s%s%s  --json               machine-readable output\n", train_help, cli_model_help,
                   cli_workload_help);
            return EXIT_OK;
        }
        if (cli_common_opt(c, optarg, common))
            continue;
        switch (c) {
        case 4001: if (cli_parse_i64(common, "train", "gpus", optarg, 1, 1 << 20, &to.gpus)) return EXIT_USAGE; continue;
        case 4002: if (cli_parse_i64(common, "train", "gpus-per-node", optarg, 1, 4096, &to.gpus_per_node)) return EXIT_USAGE; continue;
        case 4003: to.intra = optarg; continue;
        case 4004: to.inter = optarg; continue;
        case 4090: to.framework = optarg; continue;
        case 4005:
            if (cli_parse_tokens(optarg, &to.tokens))
                return cli_usage_error(common, "train", "--tokens takes a token count such as 15e12, 15T, 300B or 2.5M, not '%s'", optarg);
            continue;
        case 4006:
            if (cli_parse_duration(optarg, &to.deadline_s))
                return cli_usage_error(common, "train", "--deadline takes a duration such as 30d, 12h, 90m or 3600 (seconds), not '%s'", optarg);
            continue;
        case 4007: if (cli_parse_i64(common, "train", "top", optarg, 1, GP_TRAIN_TOP_MAX, &to.top)) return EXIT_USAGE; continue;
        case 4008:
            if (strcasecmp(optarg, "time") == 0) to.rank = GP_RANK_TIME;
            else if (strcasecmp(optarg, "cost") == 0) to.rank = GP_RANK_COST;
            else if (strcasecmp(optarg, "tokens-per-dollar") == 0) to.rank = GP_RANK_TOKENS_PER_DOLLAR;
            else return cli_usage_error(common, "train", "--rank takes time, cost or tokens-per-dollar, not '%s'", optarg);
            continue;
        case 4009: if (cli_parse_double(common, "train", "price-per-gpu-hour", optarg, 0, 1e6, &to.price)) return EXIT_USAGE; continue;
        case 4010: to.scaling = 1; continue;
        case 4011: to.allow_tp_across = 1; continue;
        case 4012: if (cli_parse_i64(common, "train", "max-gpus", optarg, 1, 1 << 20, &to.max_gpus)) return EXIT_USAGE; continue;
        case 2106: to.zero_given = 1; break;
        case 2109: to.recompute_given = 1; break;
        default: break;
        }
        int r = cli_model_opt(common, "train", c, optarg, &mo);
        if (r == 0)
            r = cli_workload_opt(common, "train", c, optarg, &wo);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return cli_usage_error(common, "train", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return cli_usage_error(common, "train", "unexpected argument '%s'", argv[optind]);
    if (wo.w.task == GP_TASK_INFER)
        return cli_usage_error(common, "train", "--task takes train, lora or qlora here (inference: 'gpuplan serve')");
    const gp_layout *g = &wo.given;
    int all_fixed = g->tp > 0 && g->pp > 0 && g->dp > 0 && g->micro_batch > 0 && to.zero_given && to.recompute_given;
    int64_t prod = (int64_t)(g->tp > 0 ? g->tp : 1) * (g->pp > 0 ? g->pp : 1) * (g->dp > 0 ? g->dp : 1) *
                   (g->cp > 0 ? g->cp : 1);
    if (to.gpus == 0 && to.deadline_s <= 0 && g->tp > 0 && g->pp > 0 && g->dp > 0)
        to.gpus = prod;
    if (to.gpus == 0 && to.deadline_s <= 0)
        return cli_usage_error(common, "train", "give --gpus N, or --deadline D with --tokens N to find the GPU count");
    if (to.gpus == 0 && to.tokens <= 0)
        return cli_usage_error(common, "train", "--deadline needs --tokens (how many tokens must be trained by then)");
    if (to.gpus > 0 && to.deadline_s > 0)
        return cli_usage_error(common, "train", "give --gpus or --deadline, not both");
    if (to.gpus > 0 && to.gpus % prod != 0)
        return cli_usage_error(common, "train", "the given degrees (tp x pp x dp x cp = %lld) do not divide --gpus %lld",
                               (long long)prod, (long long)to.gpus);
    if (all_fixed && to.gpus != prod)
        return cli_usage_error(common, "train", "tp x pp x dp x cp = %lld, but --gpus is %lld", (long long)prod, (long long)to.gpus);
    if (to.rank != GP_RANK_TIME && to.price <= 0)
        return cli_usage_error(common, "train", "--rank %s needs --price-per-gpu-hour", rank_name(to.rank));

    gp_model m;
    gp_catalog *cat;
    const gp_gpu *gpu;
    int rc = cli_model_and_gpu("train", &mo, wo.gpu, common, &m, &cat, &gpu);
    if (rc)
        return rc;
    gp_error err;
    gp_cluster cl;
    rc = build_cluster(common, gpu, &to, &cl);
    if (rc)
        return rc;

    gp_train_search_opts so;
    gp_train_search_defaults(&so);
    so.work = cli_work(common);
    so.gpus = (int)to.gpus;
    so.deadline_s = to.deadline_s;
    so.train_tokens = to.tokens;
    so.fixed = wo.given;
    so.fix_zero = to.zero_given;
    so.fix_recompute = to.recompute_given;
    so.top_k = (int)to.top;
    so.rank = to.rank;
    so.price_per_gpu_hour = to.price;
    so.allow_tp_across_nodes = to.allow_tp_across;
    so.max_gpus = (int)to.max_gpus;

    static gp_train_search_result res; /* large; one per process */
    static scale_row rows[MAX_SCALE_ROWS];
    static gp_train_search_result tmp;
    memset(&res, 0, sizeof res);
    double t0 = now_s();
    const char *mode = to.gpus > 0 ? "search" : "deadline";
    if (all_fixed) {
        /* one layout: evaluate it whether or not it fits, and say so */
        mode = "fixed";
        gp_layout l = wo.given;
        if (l.cp < 1) l.cp = 1;
        if (l.ep < 1) l.ep = 1;
        if (l.virtual_stages < 1) l.virtual_stages = 1;
        if (l.global_batch < 1) l.global_batch = (int64_t)l.dp * l.micro_batch;
        if (l.tp > 1) l.sequence_parallel = 1;
        gp_train_candidate *cd = &res.top[0];
        memset(cd, 0, sizeof *cd);
        cd->layout = l;
        if (gp_memory_estimate(&m, gpu, &wo.w, &l, &cd->memory, &err) != GP_OK ||
            gp_train_perf_estimate(&m, gpu, &cl, &wo.w, &l, to.tokens, &cd->perf, &err) != GP_OK)
            return cli_error(common, &err);
        double secs = to.tokens > 0 ? cd->perf.time_to_train_s : cd->perf.step_time_s;
        cd->cost = (to.price > 0 ? to.price : 1.0) * (double)cd->perf.gpus * secs / 3600.0;
        res.n_top = 1;
        res.gpus = gp_layout_gpus(&l);
        res.evaluated = res.valid = 1;
        res.fitting = cd->memory.fits;
        if (!cd->memory.fits) {
            res.n_reasons = 1;
            res.reasons[0].code = GP_REASON_NO_LAYOUT_FITS;
            snprintf(res.reasons[0].message, sizeof res.reasons[0].message,
                     "this layout needs %.1f GB per GPU, more than the %.1f GB of a %s", (double)cd->memory.per_gpu / 1e9,
                     (double)cd->memory.capacity / 1e9, gpu->id);
        }
    } else if (gp_train_search(&m, gpu, &cl, &wo.w, &so, &res, &err) != GP_OK)
        return cli_error(common, &err);
    double secs = now_s() - t0;

    int n_rows = 0;
    if (to.scaling && res.gpus > 0) {
        gp_train_search_opts sc = so;
        sc.deadline_s = 0;
        n_rows = run_scaling(&m, gpu, &cl, &wo.w, &sc, res.gpus, rows, &tmp, &err);
        if (n_rows < 0)
            return cli_error(common, &err);
    }
    const gp_train_candidate *best = res.n_top > 0 ? &res.top[0] : NULL;
    int64_t gb = best ? best->layout.global_batch : wo.given.global_batch;

    if (common->json) {
        json_t *cands = json_array(), *pareto = json_array(), *reasons = json_array();
        for (int i = 0; i < res.n_top; i++)
            json_array_append_new(cands, candidate_json(&res.top[i], i + 1));
        for (int i = 0; i < res.n_pareto; i++)
            json_array_append_new(pareto, candidate_json(&res.pareto[i], i + 1));
        for (int i = 0; i < res.n_reasons; i++)
            json_array_append_new(reasons, json_pack("{ss ss}", "code", gp_reason_name(res.reasons[i].code), "message",
                                                     res.reasons[i].message));
        json_t *cluster = json_pack("{si ss sf ss sf}", "gpus_per_node", cl.gpus_per_node, "intra_node", cl.intra_name,
                                    "intra_gbps", cl.intra_gbps, "inter_node", cl.inter_name, "inter_gbps", cl.inter_gbps);
        json_t *search = json_pack("{ss sI sI sI sf ss}", "mode", mode, "evaluated", (json_int_t)res.evaluated, "valid",
                                   (json_int_t)res.valid, "fitting", (json_int_t)res.fitting, "seconds", secs, "rank",
                                   rank_name(to.rank));
        json_t *o = json_pack("{ss ss ss sI sI si sf sf so so* so* so* so so so so}", "model", m.id, "gpu", gpu->id,
                              "task", gp_task_name(wo.w.task), "seq", (json_int_t)wo.w.seq, "global_batch", (json_int_t)gb,
                              "gpus", res.gpus, "tokens", to.tokens, "deadline_s", to.deadline_s, "cluster", cluster,
                              "layout", best ? layout_json(&best->layout) : NULL, "perf",
                              best ? perf_json(&best->perf, best->cost) : NULL, "memory",
                              best ? memory_json(&best->memory) : NULL, "candidates", cands, "pareto", pareto, "search",
                              search, "reasons", reasons);
        if (best)
            json_object_set_new(o, "why", json_string(best->why));
        if (to.scaling)
            json_object_set_new(o, "scaling", scaling_json(rows, n_rows, &cl));
        return cli_print_json(common, o);
    }

    char a[64], b[64];
    printf("%s training (%s) on %s x %s: %s GPUs per node, %s %.0f GB/s inside, %s %.0f GB/s between nodes\n", m.name,
           gp_task_name(wo.w.task), res.gpus > 0 ? cli_fmt_count(a, sizeof a, res.gpus) : "?", gpu->id,
           cli_fmt_count(b, sizeof b, cl.gpus_per_node), cl.intra_name, cl.intra_gbps, cl.inter_name, cl.inter_gbps);
    printf("sequence %s, global batch %s sequences (%s tokens per step), %s\n", cli_fmt_count(a, sizeof a, wo.w.seq),
           cli_fmt_count((char[32]){0}, 32, gb), cli_fmt_si(b, sizeof b, (double)gb * (double)wo.w.seq), gp_optimizer_name(wo.w.optimizer));
    if (to.deadline_s > 0) {
        printf("deadline %s for %s tokens: ", fmt_duration(a, sizeof a, to.deadline_s), cli_fmt_si(b, sizeof b, to.tokens));
        if (best && best->perf.time_to_train_s <= to.deadline_s)
            printf("smallest GPU count found: %d\n", res.gpus);
        else
            printf("NOT met with up to %lld GPUs%s\n", (long long)to.max_gpus, best ? "; the best at the largest count tried follows" : "");
    }
    printf("\n");
    if (best)
        print_result(&m, best, &to, all_fixed);
    for (int i = 0; i < res.n_reasons; i++)
        if (!best || res.reasons[i].code != GP_REASON_FITS)
            printf("%s[%s] %s\n", best ? "  " : "", gp_reason_name(res.reasons[i].code), res.reasons[i].message);
    if (best && !all_fixed && res.n_top > 1) {
        printf("\nTop %d by %s (each the best ZeRO stage and recomputation of its split):\n", res.n_top, rank_name(to.rank));
        print_table_header();
        for (int i = 0; i < res.n_top; i++) {
            print_table_row(i + 1, &res.top[i]);
            if (i > 0)
                printf("        %s\n", res.top[i].why);
        }
    }
    if (best && !all_fixed && res.n_pareto > 0) {
        printf("\nPareto front, step time vs memory per GPU (no other layout is both faster and smaller):\n");
        print_table_header();
        for (int i = 0; i < res.n_pareto; i++)
            print_table_row(i + 1, &res.pareto[i]);
    }
    if (to.scaling)
        print_scaling(rows, n_rows, &cl);
    printf("\nEvaluated %s layouts (%s valid, %s fit in memory) in %.1f ms.\n", cli_fmt_count(a, sizeof a, res.evaluated),
           cli_fmt_count(b, sizeof b, res.valid), cli_fmt_count((char[32]){0}, 32, res.fitting), secs * 1e3);
    return EXIT_OK;
}
