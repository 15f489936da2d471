/*
 * reliability.c: what failures cost (docs/cost.md, "Reliability").
 *
 * Training: N GPUs failing independently at rate lambda each interrupt the job every
 * M = 1 / (N lambda) on average. Checkpointing every tau seconds of work, each checkpoint
 * taking delta, and restarting in R, the expected wall time of T_s of work is (Daly 2006,
 * eq. 20, exponential failures)
 *     T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau,
 * and the interval minimising it is, to higher order (Daly 2006, eq. 37; Young 1974 is its
 * first term sqrt(2 delta M)),
 *     tau = sqrt(2 delta M) [1 + 1/3 sqrt(delta/(2M)) + 1/9 (delta/(2M))] - delta,  delta < 2M
 *     tau = M,                                                                    otherwise.
 * Serving: a replica of g GPUs is up a fraction a = MTBF / (MTBF + MTTR) of the time, with
 * MTBF = 1 / (g lambda); n serving replicas plus s spares serve the load while at least n are
 * up: P = sum_{k=n}^{n+s} C(n+s, k) a^k (1-a)^(n+s-k).
 */
#include "internal.h"

#include <math.h>
#include <string.h>

/* Per-GPU interruption rate: Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models",
 * sec. 3.3.4): 419 unexpected interruptions in 54 days on 16,384 H100 GPUs (GPU, host,
 * network and software faults together): 419 / (16,384 x 54 x 24 h) = 1.973e-5 per GPU-hour. */
#define GP_GPU_FAILURES_PER_HOUR (419.0 / (16384.0 * 54.0 * 24.0))
/* gpuplan assumption: a failed serving replica is replaced (a spare node swapped in, or a
 * cloud instance relaunched and the model reloaded) within 4 hours. */
#define GP_SERVE_MTTR_HOURS 4.0
/* gpuplan assumption: relaunching a training job (scheduling, NCCL setup, loading the last
 * checkpoint) takes 10 minutes. */
#define GP_TRAIN_RESTART_S 600.0
/* gpuplan assumption: sharded checkpoints are written at 1 GB/s per GPU to a parallel file
 * system (each GPU writes its shard; the aggregate grows with the job). */
#define GP_CKPT_WRITE_BYTES_PER_S_PER_GPU 1e9

void gpi_reliability_defaults(gp_reliability_params *p)
{
    p->gpu_failures_per_hour = GP_GPU_FAILURES_PER_HOUR;
    p->mttr_hours = GP_SERVE_MTTR_HOURS;
    p->restart_s = GP_TRAIN_RESTART_S;
    p->checkpoint_write_bytes_per_s_per_gpu = GP_CKPT_WRITE_BYTES_PER_S_PER_GPU;
}

gp_status gpi_train_reliability_estimate(const gp_reliability_params *p, int gpus, double time_s,
                                         double checkpoint_bytes, gp_train_reliability *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    if (gpus < 1 || time_s < 0 || checkpoint_bytes < 0 || p->gpu_failures_per_hour < 0 ||
        p->checkpoint_write_bytes_per_s_per_gpu <= 0)
        return gpi_fail(err, GP_EINVAL,
                        "reliability: GPUs >= 1, non-negative time and checkpoint size, "
                        "and a positive checkpoint write rate are needed");
    double delta = checkpoint_bytes / (p->checkpoint_write_bytes_per_s_per_gpu * gpus);
    out->checkpoint_s = delta;
    if (p->gpu_failures_per_hour == 0 || time_s == 0) {
        out->job_mtbf_s = INFINITY;
        out->time_to_train_s = time_s;
        return GP_OK;
    }
    double M = 3600.0 / (gpus * p->gpu_failures_per_hour);
    out->job_mtbf_s = M;
    double tau;
    if (delta < 2 * M) {
        double x = delta / (2 * M);
        tau = sqrt(2 * delta * M) * (1 + sqrt(x) / 3 + x / 9) - delta;
    } else {
        tau = M;
    }
    if (tau <= 0)
        tau = M;
    out->checkpoint_interval_s = tau;
    double R = p->restart_s;
    out->time_to_train_s = M * exp(R / M) * expm1((tau + delta) / M) * time_s / tau;
    out->overhead_fraction = out->time_to_train_s / time_s - 1;
    out->expected_interruptions = out->time_to_train_s / M;
    return GP_OK;
}

/* ln(n!) as a sum: lgamma() writes the global signgam, so it is not safe in concurrent runs. */
static double log_factorial(int n)
{
    double sum = 0;
    for (int i = 2; i <= n; i++)
        sum += log((double)i);
    return sum;
}

gp_status gpi_serve_reliability_estimate(const gp_reliability_params *p, int gpus_per_replica, int serving,
                                         int min_spares, double target, gp_serve_reliability *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    if (gpus_per_replica < 1 || serving < 1 || min_spares < 0 || target < 0 || target >= 1)
        return gpi_fail(err, GP_EINVAL,
                        "reliability: replicas need >= 1 GPU, the load >= 1 replica, and the "
                        "availability target must be below 1 (e.g. 0.999)");
    double lam = gpus_per_replica * p->gpu_failures_per_hour;
    double a = lam > 0 ? 1.0 / (1.0 + lam * p->mttr_hours) : 1.0; /* MTBF/(MTBF+MTTR), MTBF = 1/lam */
    out->replica_availability = a;
    out->serving = serving;
    out->target = target;
    for (int s = min_spares; s <= min_spares + 64; s++) {
        int total = serving + s;
        /* P(at least `serving` of `total` up): sum the binomial terms k = serving..total */
        double prob = 0;
        for (int k = serving; k <= total; k++) {
            double lc = log_factorial(total) - log_factorial(k) - log_factorial(total - k);
            double t = lc + k * log(a) + (total - k > 0 ? (total - k) * log1p(-a) : 0);
            prob += a >= 1 ? (k == total) : exp(t);
        }
        out->spares = s;
        out->availability = prob;
        if (prob >= target)
            break;
    }
    return GP_OK;
}
