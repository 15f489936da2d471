/* cmd_serve.c: `gpuplan serve`: serving latency and throughput under a load, and the
 * cheapest setup (GPU type, layout, replicas) meeting latency targets, with the reasons
 * (gp_serve_run); the text is gp_result_text's. */
#include "cli.h"

static const char serve_help[] =
    "usage: gpuplan serve --model X (--users N | --rate R | --trace FILE) [options] [--json]\n\n"
    "Simulates a continuous-batching engine (vLLM-like: chunked prefill, paged KV, preemption)\n"
    "under the load and reports TTFT, TPOT and end-to-end latency (p50/p90/p99), throughput and\n"
    "KV use. With targets (--ttft-p99, --tpot-p99) and no fixed setup, searches the cheapest GPU\n"
    "type x TP x replicas that meets them, and says why fewer GPUs would not. MoE models: --ep and\n"
    "--dp (attention data parallelism, ep = tp x dp); --pp splits a replica over nodes; --disagg\n"
    "also sizes disaggregated prefill and decode pools. With no load, 256 closed-loop users.\n\n"
    "Flags:\n";

int cmd_serve(int argc, char **argv, cli_common *common)
{
    return cli_answer(common, "serve", argc, argv, serve_help);
}
