/*
 * gpuplan/scenario.h: one question, as keys and values (included by gpuplan.h).
 *
 * A scenario is what a user asks: the model, the hardware, the workload, the layout, the load,
 * the decision inputs. Every front end fills one the same way: the CLI from its flags
 * (`--kv-dtype fp8`), `gpuplan plan FILE` and the web API from a JSON object
 * (`{"kv_dtype": "fp8"}`). One key table (src/lib/scenario/keys.c) is the single vocabulary:
 * each row gives a key's name (the flag is the name with '-' for '_'), its type, its range,
 * its unit, the field it fills, which commands take it and its help line. Getopt's options,
 * the help text and the JSON parser are all generated from that table, and a unit test checks
 * docs/scenario.md's key table against it.
 *
 * Adding a key (the whole change):
 *   1. a field in gp_scenario below (an int64_t, double, int, char[], or gp_scenario_list);
 *   2. one row in keys.c:  KEY("prefix_hit", NUMBER, 0, 1, "fraction", GP_CMD_SERVE,
 *                              prefix_hit, "share of prompt tokens found in the prefix cache")
 *      (enums: KEY_ENUM with a parse function; see the rows there);
 *   3. the run function that needs it reads sc->prefix_hit (gp_scenario_has() says whether
 *      the user gave it; an unset key keeps the value gp_scenario_init gave it).
 * The CLI flag (--prefix-hit), the scenario/API key and the help line follow by themselves.
 *
 * Thread safety: the key table is constant; a gp_scenario is a plain value (no pointers it
 * owns), safe to copy, one per thread: the functions that read one may share it, those that
 * change it (gp_scenario_init, _set, _parse_json) need it to themselves. Key pointers
 * (gp_scenario_key_at, _find) point into the constant table: never freed.
 */
#ifndef GPUPLAN_SCENARIO_H
#define GPUPLAN_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

/* Commands (bit set): which questions take a key. */
typedef enum gp_command {
    GP_CMD_FIT = 1u << 0,
    GP_CMD_TRAIN = 1u << 1,
    GP_CMD_SERVE = 1u << 2,
    GP_CMD_PLAN = 1u << 3,
    GP_CMD_EXPORT = 1u << 4,
    GP_CMD_TABLE = 1u << 5,
    GP_CMD_MODEL = 1u << 6,
} gp_command;

/* "fit" -> GP_CMD_FIT (exact, lower case); 0 if unknown. */
GP_API unsigned gp_command_parse(const char *name);
/* The name of one GP_CMD_* bit ("fit"); a constant string. */
GP_API const char *gp_command_name(unsigned cmd);

typedef enum gp_key_type {
    GP_KEY_INT = 0,  /* whole number (int64_t field); JSON number or numeric string */
    GP_KEY_NUMBER,   /* real number (double field) */
    GP_KEY_BOOL,     /* switch (int field): flag without value, JSON true/false */
    GP_KEY_STRING,   /* text (char[] field) */
    GP_KEY_ENUM,     /* one of named choices (int field, via the row's parse function) */
    GP_KEY_TOKENS,   /* a count with a suffix: 15T, 300B, 2.5M, 1e9 (double field) */
    GP_KEY_DURATION, /* 30d, 12h, 90m, 45s, 2w or seconds (double field) */
    GP_KEY_LIST,     /* one or more strings (gp_scenario_list field); a flag repeats */
    GP_KEY_MODEL,    /* a model name (string), or in JSON a config.json object */
    GP_KEY_TYPE_COUNT
} gp_key_type;

/* Key flags. */
#define GP_KEYF_FILE   1u /* names a file or directory: the web API refuses it */
#define GP_KEYF_INF    2u /* NUMBER that also takes "inf" (stored as INFINITY) */
#define GP_KEYF_OPTARG 4u /* BOOL whose flag may take =0|1 (--tied-embeddings=0) */
#define GP_KEYF_NEGATE 8u /* BOOL that switches a default off (--no-flash-attention) */

/* One row of the key table. */
typedef struct gp_scenario_key {
    const char *name; /* "kv_dtype"; the flag is "--kv-dtype" */
    gp_key_type type;
    double min, max;             /* accepted range (INT, NUMBER, TOKENS, DURATION); LIST: values */
    double api_max;              /* the web API's bound on one request's work (0: max) */
    const char *unit;            /* "tokens", "s", "GPUs", "" */
    const char *choices;         /* ENUM/LIST: "bf16, fp16, ..." for messages and help */
    unsigned commands;           /* GP_CMD_* bits */
    unsigned flags;              /* GP_KEYF_* */
    const char *help;            /* one line */
    size_t offset;               /* field of gp_scenario */
    size_t size;                 /* STRING: bytes of the field */
    int (*parse)(const char *s); /* ENUM: value >= 0, or -1; LIST/STRING: check (-1 bad) */
} gp_scenario_key;

/* The key table: its rows in order (docs/scenario.md); row i, NULL past the end. */
GP_API size_t gp_scenario_key_count(void);
GP_API const gp_scenario_key *gp_scenario_key_at(size_t i);
/* Exact name ("kv_dtype"; "kv-dtype" is accepted as the same); NULL if none. */
GP_API const gp_scenario_key *gp_scenario_key_find(const char *name);

#define GP_SCENARIO_VERSION  1
#define GP_SCENARIO_LIST_MAX 16
#define GP_SCENARIO_PATH_MAX 512
#define GP_SCENARIO_MAX_KEYS 192

typedef struct gp_scenario_list {
    int n;
    char v[GP_SCENARIO_LIST_MAX][64];
} gp_scenario_list;

/* Where a value came from (list keys: flags after a file replace the file's list). */
typedef enum gp_scenario_source {
    GP_SRC_FLAG = 0, /* a command-line flag: messages name "--flag" */
    GP_SRC_FILE,     /* a scenario document: messages name "scenario key 'key'" */
    GP_SRC_API,      /* the web API: as FILE, and keys naming files are refused */
} gp_scenario_source;

typedef struct gp_scenario {
    int version;                                    /* GP_SCENARIO_VERSION */
    unsigned command;                               /* the question asked (GP_CMD_*) */
    uint64_t set[GP_SCENARIO_MAX_KEYS / 64];        /* keys given */
    uint64_t from_flags[GP_SCENARIO_MAX_KEYS / 64]; /* keys given by a flag */
    /* model */
    char model[GP_SCENARIO_PATH_MAX]; /* --model */
    int has_inline_model;             /* the API's "model": {config.json} */
    gp_model inline_model;
    int64_t layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
    int64_t experts, experts_active, moe_ffn, shared_experts;
    int tied_embeddings;
    /* hardware */
    gp_scenario_list gpu; /* one (or, for plan, candidates); default H100-SXM-80GB */
    int64_t gpus, gpus_per_node, max_gpus;
    char intra_node[48], inter_node[48];
    char profile[GP_SCENARIO_PATH_MAX]; /* calibration profile applied to the catalog (docs/calibration.md) */
    char framework[16];                 /* --framework: megatron (default), fsdp, deepspeed */
    int ep_overlap;                     /* --ep-overlap: Megatron-Core's EP all-to-all overlap */
    int cuda_graphs;                    /* --cuda-graphs: gp_cuda_graphs (none, layer, full) */
    int ep_dispatcher;                  /* --ep-dispatcher: gp_ep_dispatcher (alltoall, deepep, hybridep) */
    int fp8_recipe;                     /* --fp8-recipe: gp_fp8_recipe (default, fused, tensorwise, rowwise) */
    int tp_overlap;                     /* --tp-overlap: an FSDP stack's async TP */
    /* workload */
    int task;               /* gp_task */
    gp_scenario_list dtype; /* plan: precisions to compare; else the last */
    int kv_dtype;           /* gp_dtype */
    int64_t context, batch, seq, lora_rank, block_size, max_num_batched_tokens, max_num_seqs;
    int optimizer, offload; /* gp_optimizer, gp_offload */
    int no_flash_attention;
    char engine[32]; /* fit/serve/plan: gp_engine; export: a target (docs/export.md) */
    double gpu_memory_utilization;
    /* layout */
    int64_t tp, pp, dp, cp, ep, zero, micro_batch, global_batch, virtual_stages;
    int recompute;              /* gp_recompute */
    char recompute_modules[96]; /* Megatron-Core's selective modules: "layernorm,moe_act" (implies selective) */
    int sequence_parallel;
    /* serving load and targets */
    int64_t users, requests, prompt_tokens, output_tokens, replicas, seed;
    double rate, think_time, ttft_p99, tpot_p99;
    int redundancy, lengths, arrival; /* spares; gp_length_dist; 0 poisson, 1 fixed */
    char trace[GP_SCENARIO_PATH_MAX];
    double prefix_hit;    /* fraction of each prompt in the prefix cache */
    char spec_decode[32]; /* "K:A[:C]" or "mtp" */
    int disagg;           /* also size disaggregated prefill/decode pools */
    double max_work;      /* the question's work budget (0: the front end's) */
    /* training run */
    double tokens, deadline, price_per_gpu_hour;
    int64_t top;
    int rank; /* gp_rank_by */
    int scaling, allow_tp_across_nodes;
    /* decision and report */
    char compliance[32], currency[8], format[16], lang[8], title[256];
    int64_t horizon_months;
    double availability, egress_tb_per_month;
    int allow_consumer; /* keep consumer GPUs in regulated/production plans */
    int report_html;    /* --json: the HTML report inside (the web page's download) */
    gp_scenario_list deployment;
    char out[GP_SCENARIO_PATH_MAX], export_dir[GP_SCENARIO_PATH_MAX];
    /* export */
    char model_path[GP_SCENARIO_PATH_MAX], data[GP_SCENARIO_PATH_MAX], time[16], job_name[64];
    int64_t port;
    char api_key_env[64]; /* "": none */
    int audit_log;
} gp_scenario;

/* Fill *sc with the defaults for a command (one GP_CMD_* bit: prompt 1000, output 200, seed 1,
 * top 5, ...; train: task train); no key is marked given. */
GP_API void gp_scenario_init(gp_scenario *sc, unsigned command);
/* Was the key given? (by name, '-' or '_'; 0 for an unknown name) */
GP_API int gp_scenario_has(const gp_scenario *sc, const char *name);
/* Set one key (a row of the table, from gp_scenario_key_find) from text (a flag's value; NULL
 * for a switch without value) and mark it given. GP_EINVAL with a message naming the key (as
 * --flag or as 'key' by `src`) and its range or choices, err->field the key. */
GP_API gp_status gp_scenario_set(gp_scenario *sc, const gp_scenario_key *key, const char *value, gp_scenario_source src,
                                 gp_error *err);
/* The built-in example, a scenario document (plan): serving Llama-3.1-70B to 300 users under
 * health-data rules in Brazil, 36 months, costs in BRL (`gpuplan` alone, `gpuplan plan` with
 * no file and no model). Static text. */
GP_API const char *gp_scenario_example(void);
/* Parse a scenario JSON object (exact keys only: an unknown or shortened key is an error naming
 * it, with the nearest valid key as a hint; "description", "name", "notes" and "$schema" are
 * ignored) into sc for the command sc->command. Syntax errors give line, column and byte
 * offset; `name` is used in messages ("scenario.json"; NULL: "scenario"). */
GP_API gp_status gp_scenario_parse_json(gp_scenario *sc, const char *text, size_t len, const char *name,
                                        gp_scenario_source src, gp_error *err);
/* Check the values given against the web API's per-request bounds (api_max): GP_ELIMIT naming
 * the key and its bound. Reads sc only. */
GP_API gp_status gp_scenario_check_api_bounds(const gp_scenario *sc, gp_error *err);

/* Help lines for the keys a command takes, into buf ("  --users N  closed loop: ..."), one
 * per key in table order; returns the bytes needed (as snprintf; buf may be NULL). */
GP_API size_t gp_scenario_help(unsigned command, char *buf, size_t size);

#endif /* GPUPLAN_SCENARIO_H */
