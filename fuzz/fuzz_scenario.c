/*
 * fuzz_scenario.c: libFuzzer target for the scenario / web API parser (gp_scenario_parse_json)
 * and for what its accepted values reach: the memory model and the simulator.
 *
 * Input: byte 0 picks the command (fit, train, serve, plan, export, table, model), byte 1 the
 * source (a scenario file or the web API), the rest is the JSON document. Properties:
 *  - every failure explains itself (a message; a field when a key is at fault);
 *  - every accepted INT/NUMBER key lies in its table range (or is inf where allowed);
 *  - the accepted workload and layout go through gpi_memory_estimate (Llama-3.1-8B on an
 *    H100): either an answer whose figures are each at most 2^60 bytes, or an error with a
 *    message; the accepted load through gpi_simulate under a 2e4-unit budget likewise.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gp_catalog *cat;
static const gp_gpu *h100;
static gp_model llama;

static void check_ranges(const gp_scenario *sc)
{
    for (size_t i = 0; i < gp_scenario_key_count(); i++) {
        const gp_scenario_key *k = gp_scenario_key_at(i);
        if (!gp_scenario_has(sc, k->name))
            continue;
        const char *p = (const char *)sc + k->offset;
        if (k->type == GP_KEY_INT) {
            int64_t v;
            memcpy(&v, p, sizeof v);
            if ((double)v < k->min || (double)v > k->max)
                abort();
        } else if (k->type == GP_KEY_NUMBER) {
            double v;
            memcpy(&v, p, sizeof v);
            if (isnan(v) || ((v < k->min || v > k->max) && !(isinf(v) && (k->flags & GP_KEYF_INF))))
                abort();
        }
    }
}

static void check_error(gp_status st, const gp_error *e)
{
    if (st != GP_OK && !e->msg[0])
        abort();
}

static void run_memory(const gp_scenario *sc)
{
    gp_workload w;
    gpi_workload_defaults(&w, (gp_task)sc->task);
    if (gp_scenario_has(sc, "context"))
        w.context = sc->context;
    if (gp_scenario_has(sc, "batch"))
        w.batch = sc->batch;
    if (gp_scenario_has(sc, "seq"))
        w.seq = sc->seq;
    if (gp_scenario_has(sc, "lora_rank"))
        w.lora_rank = sc->lora_rank;
    if (gp_scenario_has(sc, "block_size"))
        w.block_size = sc->block_size;
    if (gp_scenario_has(sc, "max_num_seqs"))
        w.max_num_seqs = sc->max_num_seqs;
    if (gp_scenario_has(sc, "max_num_batched_tokens"))
        w.max_num_batched_tokens = sc->max_num_batched_tokens;
    if (gp_scenario_has(sc, "gpu_memory_utilization"))
        w.gpu_memory_utilization = sc->gpu_memory_utilization;
    w.engine = gpi_engine_parse(sc->engine) < GP_ENGINE_COUNT ? gpi_engine_parse(sc->engine) : GP_ENGINE_NONE;
    w.flash_attention = !sc->no_flash_attention;
    w.kv_dtype = (gp_dtype)sc->kv_dtype;
    w.optimizer = (gp_optimizer)sc->optimizer;
    w.offload = (gp_offload)sc->offload;
    gp_layout l;
    gpi_layout_defaults(&l);
    if (sc->tp > 0 && sc->tp <= 1 << 20)
        l.tp = (int)sc->tp;
    if (sc->pp > 0 && sc->pp <= 1 << 20)
        l.pp = (int)sc->pp;
    if (sc->dp > 0 && sc->dp <= 1 << 20)
        l.dp = (int)sc->dp;
    if (sc->cp > 0 && sc->cp <= 1 << 20)
        l.cp = (int)sc->cp;
    if (sc->zero >= 0 && sc->zero <= 3)
        l.zero = (int)sc->zero;
    if (sc->micro_batch > 0)
        l.micro_batch = sc->micro_batch;
    l.global_batch = sc->global_batch;
    l.recompute = (gp_recompute)sc->recompute;
    gp_memory mem;
    gp_error e;
    gp_status st = gpi_memory_estimate(&llama, h100, &w, &l, &mem, &e);
    check_error(st, &e);
    if (st == GP_OK && (mem.kv_cache > GPI_MAX_BYTES || mem.activations > GPI_MAX_BYTES ||
                        mem.weights > GPI_MAX_BYTES || mem.kv_tokens < 0 || !isfinite(mem.max_concurrency)))
        abort();
}

static void run_simulation(const gp_scenario *sc)
{
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    gp_layout l;
    gpi_layout_defaults(&l);
    gpi_step_model sm;
    if (gpi_step_model_init(&llama, h100, NULL, &w, &l, NULL, &sm, NULL) != GP_OK)
        abort();
    gpi_sched_config scfg;
    memset(&scfg, 0, sizeof scfg);
    scfg.max_num_seqs = 256;
    scfg.max_num_batched_tokens = 8192;
    scfg.kv_blocks = 20000;
    scfg.block_size = 16;
    gp_traffic t;
    memset(&t, 0, sizeof t);
    if (gp_scenario_has(sc, "users")) {
        t.arrival = GP_ARRIVAL_CLOSED_LOOP;
        t.users = sc->users;
        t.think_time_s = sc->think_time;
    } else if (isinf(sc->rate)) {
        t.arrival = GP_ARRIVAL_BURST;
    } else {
        t.arrival = sc->arrival ? GP_ARRIVAL_FIXED_RATE : GP_ARRIVAL_POISSON;
        t.rate = sc->rate > 0 ? sc->rate : 1.0;
    }
    t.requests = sc->requests > 0 ? sc->requests : 100;
    t.prompt.dist = t.output.dist = (gp_length_dist)sc->lengths;
    t.prompt.mean = (double)sc->prompt_tokens;
    t.output.mean = (double)sc->output_tokens;
    t.seed = (uint64_t)sc->seed;
    gp_work wk;
    gpi_work_init(&wk, 0);
    wk.limit = 2e4; /* a few ms per input */
    t.work = &wk;
    gp_sim_result r;
    gp_error e;
    gp_status st = gpi_simulate(&sm, &scfg, &t, NULL, &r, &e);
    check_error(st, &e);
    if (st == GP_OK && (!isfinite(r.ttft.max) || r.ttft.max < 0 || !isfinite(r.tpot.max) || r.requests < 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned cmds[] = {GP_CMD_FIT,    GP_CMD_TRAIN, GP_CMD_SERVE, GP_CMD_PLAN,
                                    GP_CMD_EXPORT, GP_CMD_TABLE, GP_CMD_MODEL};
    if (!cat) {
        if (gp_catalog_open(NULL, &cat, NULL) != GP_OK ||
            gp_catalog_find_gpu(cat, "H100-SXM-80GB", &h100, NULL) != GP_OK ||
            gp_catalog_find_model(cat, "llama-3.1-8b", &llama, NULL) != GP_OK)
            abort();
    }
    if (size < 2)
        return 0;
    unsigned cmd = cmds[data[0] % (sizeof cmds / sizeof cmds[0])];
    gp_scenario_source src = data[1] & 1 ? GP_SRC_API : GP_SRC_FILE;
    gp_scenario *sc = malloc(sizeof *sc);
    if (!sc)
        return 0;
    gp_scenario_init(sc, cmd);
    gp_error e;
    gp_status st = gp_scenario_parse_json(sc, (const char *)data + 2, size - 2, "fuzz.json", src, &e);
    check_error(st, &e);
    if (st == GP_OK) {
        check_ranges(sc);
        if (src == GP_SRC_API)
            check_error(gp_scenario_check_api_bounds(sc, &e), &e);
        run_memory(sc);
        if (cmd == GP_CMD_SERVE)
            run_simulation(sc);
    }
    free(sc);
    return 0;
}
