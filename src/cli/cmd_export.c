/*
 * cmd_export.c: `gpuplan export --engine E [--out DIR]`: the command lines and config files
 * that run a planned layout on a serving or training engine (gp_export_run). Layout
 * dimensions not given are filled with what gpuplan recommends: fit's smallest layout
 * (inference) or the best layout of the training search (training).
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
    "Flags:\n";

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

int cmd_export(int argc, char **argv, cli_common *common)
{
    gp_result *r = NULL;
    int rc = cli_run_question(common, "export", argc, argv, export_help, &r);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    const gp_export_files *f = gp_result_export(r);
    const char *out_dir = gp_result_scenario(r)->out;
    if (out_dir[0])
        rc = write_files(common, out_dir, f);
    if (rc == EXIT_OK && common->json) {
        rc = cli_print_result_json(common, r);
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
            fprintf(errf(common), "note: %s\n", line);
    }
    gp_result_free(r);
    return rc;
}
