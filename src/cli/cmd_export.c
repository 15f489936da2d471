/*
 * cmd_export.c: `gpuplan export --engine E [--out DIR]`: the command lines and config files
 * that run a planned layout on a serving or training engine (gp_export_run). Layout
 * dimensions not given are filled with what gpuplan recommends: fit's smallest layout
 * (inference) or the best layout of the training search (training).
 */
#include "cli.h"

#include <string.h>

static const char export_help[] =
    "usage: gpuplan export --engine E --model X [--out DIR] [workload and layout flags] [--json]\n\n"
    "Launch files for a layout on an engine: serving (vllm, sglang, tgi, llamacpp, trtllm; --task infer)\n"
    "or training (deepspeed, megatron, torchrun-fsdp, slurm; --task train|lora|qlora). Only the\n"
    "engines' real flags and keys are written (docs/export.md). Layout dimensions not given come\n"
    "from gpuplan: the smallest fitting layout (inference) or the best searched one (training).\n\n"
    "Flags:\n";

int cmd_export(int argc, char **argv, cli_common *common)
{
    gp_result *r = NULL;
    int rc = cli_run_question(common, "export", argc, argv, export_help, &r);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    const gp_export_files *f = gp_result_export(r);
    const char *out_dir = gp_result_scenario(r)->out;
    if (out_dir[0])
        rc = cli_write_files(common, "export", out_dir, f, common->json ? NULL : stdout, "");
    char *text = NULL;
    size_t len = 0;
    gp_error err;
    if (rc == EXIT_OK && common->json) {
        rc = gp_result_json(r, &text, &len, &err) == GP_OK ? cli_print_text(text, len) : cli_error(common, &err);
    } else if (rc == EXIT_OK) {
        if (!out_dir[0])
            for (int i = 0; i < f->n; i++) {
                if (f->n > 1)
                    printf("%s==> %s <==\n", i ? "\n" : "", f->files[i].name);
                fwrite(f->files[i].content, 1, f->files[i].len, stdout);
            }
        char notes[sizeof f->notes], *save = NULL;
        memcpy(notes, f->notes, sizeof notes);
        for (char *line = strtok_r(notes, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            fprintf(cli_err(common), "note: %s\n", line);
    }
    gp_result_free(r);
    return rc;
}
