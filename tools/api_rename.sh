#!/usr/bin/env bash
# tools/api_rename.sh: give libgpuplan's private names the private prefix.
#
# The functions, types, macros and enum constants below were declared in include/ while the
# modules talked through it; they now live in src/lib/private/*.h (docs/architecture.md,
# "Public and private") and are not API. This renames each one, as a whole word, from gp_ to
# gpi_ (GP_ to GPI_) in every tracked C source, header, shell script and Markdown file under
# src/, tests/, bench/, fuzz/, tools/validate/ and docs/, so that a name says which side of the
# seam it is on. include/ is never edited: a listed name found there is an error.
#
# Idempotent: a second run finds nothing left to rename. Run it from anywhere in the work
# tree, once every branch that still uses the old names is merged; then rebuild and test.
#   tools/api_rename.sh          rename
#   tools/api_rename.sh --check  exit 1 (listing the files) if an old name is still used
set -euo pipefail
cd "$(dirname "$0")/.."

# Functions (exported by libgpuplan.so until the API was narrowed).
FUNCS="
  gp_alt_kind_name gp_batch_decode gp_batch_prefill gp_cal_param_range gp_capacity_search
  gp_capacity_set_lang gp_capacity_share gp_catalog_apply_profile_text gp_catalog_find_link
  gp_catalog_gpu_host_link gp_catalog_gpu_link gp_catalog_gpu_price gp_catalog_link_at
  gp_catalog_link_count gp_cluster_defaults gp_cluster_set_link gp_collective_op_name
  gp_compliance_check gp_compliance_profile gp_compliance_redundancy gp_cost_break_even_month
  gp_cost_estimate gp_cuda_graphs_name gp_cuda_graphs_parse gp_deploy_kind_name
  gp_fp8_recipe_name gp_fp8_recipe_parse
  gp_disagg_search gp_dtype_parse gp_engine_parse gp_engine_profile_get gp_export_command
  gp_export_engine_kind gp_export_engine_name gp_export_engine_parse gp_export_engine_task
  gp_export_engine_version gp_export_job_defaults gp_export_render gp_fit gp_fit_set_lang
  gp_framework_name gp_framework_parse gp_ggml_type_bytes gp_ggml_type_name
  gp_gpu_hourly_price gp_kv_transfer_time gp_layout_defaults gp_length_default
  gp_memory_estimate gp_model_from_gguf_buffer gp_offload_parse gp_optimizer_parse
  gp_perf_params_defaults gp_perf_params_profile gp_plan gp_plan_launch_job
  gp_plan_request_defaults gp_prices_find_deployment gp_prices_find_gpu gp_prices_gpu_hour
  gp_prices_import_duty gp_prices_load gp_prices_low_confidence gp_prices_rate
  gp_prices_server gp_recompute_parse gp_reliability_defaults gp_report_format_parse
  gp_report_free gp_report_render gp_risk_kind_name gp_rule_kind_name gp_run_format_name
  gp_runset_count gp_runset_free gp_runset_get gp_runset_new gp_runset_parse gp_runset_read
  gp_safetensors_scan_buffer gp_safetensors_scan_file gp_scenario_key_nearest
  gp_scenario_layout gp_scenario_workload gp_serve_node_gpus gp_serve_reliability_estimate
  gp_serve_sched_config gp_serve_sched_config_profile gp_simulate gp_step_model_init
  gp_step_model_init_nodes gp_step_model_use_rates gp_step_time gp_task_parse gp_trace_free
  gp_trace_read gp_train_perf_estimate gp_train_reliability_estimate gp_train_search
  gp_train_search_defaults gp_work_init gp_workload_defaults"
# Types: structs, enums and a callback only the modules use.
TYPES="
  gp_batch_shape gp_capacity_request gp_collective_op gp_compliance_subject gp_cost_input
  gp_country_costs gp_currency gp_engine_profile gp_export_job gp_export_kind gp_gpu_price
  gp_link gp_link_kind gp_measured_run gp_perf_params gp_price_risks gp_prices gp_progress_fn
  gp_report_format gp_report_opts gp_run_format gp_run_kind gp_runset gp_sched_config
  gp_server_spec gp_step_breakdown gp_step_model"
# Tuning macros and limits of private structs.
MACROS="
  GP_EXPORT_PATH_MAX GP_LOGNORMAL_SIGMA GP_PRICES_MAX_COUNTRIES GP_PRICES_MAX_CURRENCIES
  GP_PRICES_MAX_GPUS GP_PRICES_MAX_LOW_CONFIDENCE GP_PROFILE_MAX_BYTES GP_RUN_MAX_POINTS
  GP_WORK_BYTES_DEFAULT GP_WORK_BYTES_LARGE GP_WORK_DEFAULT GP_WORK_LARGE GP_WORK_PER_LAYOUT
  GP_WORK_PROGRESS_EVERY"
# Constants of the private enums.
CONSTS="
  GP_LINK_SCALE_UP GP_LINK_HOST GP_LINK_SCALE_OUT GP_LINK_KIND_COUNT GP_RUN_TRAIN
  GP_RUN_SERVE GP_RUN_COLLECTIVE GP_RUNFMT_JSONL GP_RUNFMT_CSV GP_RUNFMT_MEGATRON
  GP_RUNFMT_TORCHTITAN GP_RUNFMT_VLLM_BENCH GP_RUNFMT_TRTLLM_BENCH GP_RUNFMT_NCCL_TESTS
  GP_RUNFMT_SERVE_TEXT GP_EXPORT_KIND_SERVE GP_EXPORT_KIND_TRAIN GP_REPORT_TEXT
  GP_REPORT_JSON GP_REPORT_MARKDOWN GP_REPORT_HTML GP_REPORT_FORMAT_COUNT GP_EXPORT_VLLM
  GP_EXPORT_SGLANG GP_EXPORT_TGI GP_EXPORT_LLAMACPP GP_EXPORT_TRTLLM GP_EXPORT_DEEPSPEED
  GP_EXPORT_MEGATRON GP_EXPORT_TORCHRUN_FSDP GP_EXPORT_SLURM GP_EXPORT_COUNT"
# gp_collective_op's constants: GPI_COLL_* is taken by the kernel rates' own enum (hw/kernels.h),
# so they take the type's name instead: GP_COLL_ALL_REDUCE -> GPI_COLLECTIVE_ALL_REDUCE.
COLL="UNKNOWN ALL_REDUCE ALL_GATHER REDUCE_SCATTER ALL_TO_ALL"
# The export module's target enum is not an engine enum (gp_engine is the one): its type takes
# the name of what it is, gp_export_engine -> gpi_export_target (its functions keep their stem).

names=$(printf '%s\n' $FUNCS $TYPES $MACROS $CONSTS)
# one word-bounded alternation per prefix: \b(gp_a|gp_b)\b -> gpi_\1 (GNU sed -E)
lower=$(printf '%s\n' $names | grep '^gp_' | sed 's/^gp_//' | paste -sd'|')
upper=$(printf '%s\n' $names | grep '^GP_' | sed 's/^GP_//' | paste -sd'|')
coll=$(printf '%s\n' $COLL | paste -sd'|')
pattern="\\b(gp_($lower)|GP_($upper)|GP_COLL_($coll)|gp_export_engine)\\b"

# A listed name in the public headers means the API and this list disagree: stop.
if git grep -qwE "gp_($lower)|GP_($upper)|GP_COLL_($coll)|gp_export_engine" -- include; then
    echo "api_rename: a private name is still in include/:" >&2
    git grep -nwE "gp_($lower)|GP_($upper)|GP_COLL_($coll)|gp_export_engine" -- include >&2
    exit 2
fi

mapfile -t files < <(git ls-files -- src tests bench fuzz tools/validate docs \
                     | grep -E '\.(c|h|sh|md)$' | grep -v '^tools/api_rename\.sh$' || true)
[ ${#files[@]} -gt 0 ] || { echo "api_rename: no files (not a gpuplan work tree?)" >&2; exit 2; }
todo=$(grep -lE "$pattern" "${files[@]}" || true)

if [ "${1:-}" = "--check" ]; then
    if [ -n "$todo" ]; then
        echo "api_rename: old names still used in:" >&2
        echo "$todo" >&2
        exit 1
    fi
    exit 0
fi
[ -z "$todo" ] && { echo "api_rename: nothing to rename"; exit 0; }
for f in $todo; do
    sed -E -i "s/\\bgp_($lower)\\b/gpi_\\1/g; s/\\bGP_($upper)\\b/GPI_\\1/g; s/\\bGP_COLL_($coll)\\b/GPI_COLLECTIVE_\\1/g; s/\\bgp_export_engine\\b/gpi_export_target/g" "$f"
done
echo "api_rename: renamed in $(echo "$todo" | wc -l) files; rebuild and run the tests"
