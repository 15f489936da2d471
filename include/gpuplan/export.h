/*
 * gpuplan/export.h: launch files for serving and training engines (included by gpuplan.h;
 * not a header of its own).
 *
 * gp_export_run (gpuplan/run.h) and gp_result_plan_export render a planned job into the
 * command lines and config files that run its layout on one engine, using only the flags and
 * keys the engine documents (docs/export.md lists them with the engine version each generated
 * file names in its first comment). Rendering is pure: nothing is written to disk, printed or
 * kept in global state; the caller writes the files (the CLI does, under --out).
 */
#ifndef GPUPLAN_EXPORT_H
#define GPUPLAN_EXPORT_H

#define GP_EXPORT_MAX_FILES 8
#define GP_EXPORT_NAME_MAX  64

/* One generated file. `content` is NUL-terminated and owned by the gp_export_files. */
typedef struct gp_export_file {
    char name[GP_EXPORT_NAME_MAX]; /* relative file name: "launch.sh", "ds_config.json" */
    char *content;                 /* malloc'd; freed by gp_export_files_free */
    size_t len;                    /* strlen(content) */
    int executable;                /* 1: a script the CLI writes with mode 0755 */
} gp_export_file;

typedef struct gp_export_files {
    char engine[32]; /* what the files launch, as the CLI names it ("vllm",
                        "torchrun-fsdp") */
    int n;           /* files filled, <= GP_EXPORT_MAX_FILES */
    gp_export_file files[GP_EXPORT_MAX_FILES];
    char command[4096];      /* the main command line, one line, for reports */
    char notes[GP_NOTE_MAX]; /* caveats ('\n'-separated), e.g. multi-node */
} gp_export_files;

/* Free the contents of every file and reset `out` (the struct itself is the caller's; NULL:
 * no-op). For files from gp_result_plan_export; those of gp_result_export belong to the result. */
GP_API void gp_export_files_free(gp_export_files *out);

#endif /* GPUPLAN_EXPORT_H */
