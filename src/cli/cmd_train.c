/*
 * cmd_train.c: `gpuplan train`: training step time, TFLOP/s, MFU and time to train for a
 * layout, or the search over every valid layout of N GPUs (or the smallest N meeting a
 * deadline), with the top layouts, why each wins, the Pareto front and a scaling table
 * (gp_train_run; the text is gp_result_text's).
 */
#include "cli.h"

static const char train_help[] =
    "usage: gpuplan train --model X [--gpu ID] (--gpus N | --deadline D --tokens T) [flags] [--json]\n\n"
    "Step time, tokens/s, TFLOP/s per GPU, MFU/HFU and time to train. Layout dimensions given\n"
    "(--tp --pp --dp --cp --ep --zero --recompute --micro-batch --virtual-stages) are fixed and the\n"
    "rest searched over every valid layout; with --tp --pp --dp --micro-batch --zero --recompute\n"
    "all given, that one layout is evaluated. Prints the best layout, its step-time breakdown,\n"
    "the top layouts with why each ranks where it does, and the Pareto front of step time vs\n"
    "memory per GPU.\n\n"
    "Flags:\n";

int cmd_train(int argc, char **argv, cli_common *common)
{
    return cli_answer(common, "train", argc, argv, train_help);
}
