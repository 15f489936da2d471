/* cmd_fit.c: `gpuplan fit`: memory per GPU, and one GPU or several, and why (gp_fit_run; the
 * text is gp_result_text's). */
#include "cli.h"

static const char fit_help[] =
    "usage: gpuplan fit --model X [--gpu ID] [workload and layout flags] [--json]\n\n"
    "Memory per GPU (weights, KV cache, activations, gradients, optimizer, overhead) and the\n"
    "verdict: does it fit on one GPU of the type; if not, the smallest number that holds it,\n"
    "with its layout, why, and which single larger GPU would hold it alone.\n\n";

int cmd_fit(int argc, char **argv, cli_common *common)
{
    return cli_answer(common, "fit", argc, argv, fit_help);
}
