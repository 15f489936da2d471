/* libFuzzer target: the measured-run readers (calibrate/runs*.c): JSON Lines, CSV, Megatron-LM,
 * torchtitan, vLLM result JSON and text, trtllm-bench and nccl-tests, detected by content.
 * Every run that comes back must carry a scenario that is a JSON object and figures that are
 * NaN or positive and finite; every failure must explain itself. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_run(const gpi_measured_run *r)
{
    json_t *o = json_loads(r->scenario_json, 0, NULL);
    if (!json_is_object(o))
        abort();
    json_decref(o);
    const double figures[] = {r->model_tflops_per_gpu, r->hw_tflops_per_gpu, r->mfu,
                              r->tokens_per_s_per_gpu, r->step_time_s,       r->output_tokens_per_s,
                              r->total_tokens_per_s,   r->ttft_p50_s,        r->tpot_p50_s};
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (!isnan(figures[i]) && !(figures[i] > 0 && isfinite(figures[i])))
            abort();
    if (r->points < 0 || r->points > GPI_RUN_MAX_POINTS)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpi_runset *set = gpi_runset_new();
    if (!set)
        return 0;
    gp_error err;
    gp_error_clear(&err);
    gp_status st = gpi_runset_parse(set, "fuzz", (const char *)data, size, "{\"gpu\": \"H100-SXM-80GB\"}", &err);
    if (st != GP_OK && !err.msg[0])
        abort();
    for (size_t i = 0; i < gpi_runset_count(set); i++)
        check_run(gpi_runset_get(set, i));
    gpi_runset_free(set);
    return 0;
}
