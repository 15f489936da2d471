/*
 * serve.c: pieces every serving export shares: the API key (read from an environment
 * variable, never written into a file) and the conversion step for quantized weights an
 * engine cannot make at start-up (quantize.sh, run once before launch.sh).
 *
 * Conversion tools (docs/export.md "Quantized weights"): llm-compressor's data-free oneshot
 * with QuantizationModifier writes a compressed-tensors checkpoint that vLLM, SGLang and TGI
 * load with no quantization flag (they read its quantization_config); TensorRT Model
 * Optimizer's examples/llm_ptq/hf_ptq.py writes the Hugging Face checkpoint trtllm-serve's
 * PyTorch backend loads; llama.cpp's convert_hf_to_gguf.py and llama-quantize make a GGUF.
 */
#include "export_impl.h"

#include <stdio.h>
#include <string.h>

void gpx_api_key_var(gpx_buf *b, const gpx_ctx *c)
{
    if (!c->api_key_env[0])
        return;
    gpx_add(b, "# The API key clients send (\"Authorization: Bearer ...\"); it stays in the environment.\n");
    gpx_add(b, ": \"${%s:?set %s to the API key}\"\n", c->api_key_env, c->api_key_env);
}

void gpx_service_args(const gpx_ctx *c, gpx_cmd *cmd, const char *name_flag, const char *host_flag)
{
    if (name_flag)
        gpx_arg(cmd, "%s %s", name_flag, c->served_name);
    gpx_arg(cmd, "%s %s", host_flag, c->host);
    gpx_arg(cmd, "--port %d", c->port);
    if (c->api_key_env[0])
        gpx_arg(cmd, "--api-key \"$%s\"", c->api_key_env);
}

/* Scheme names per tool for a weight dtype; NULL when the tool has none. */
static const char *scheme(const char *tool, gp_dtype t)
{
    int gguf = !strcmp(tool, "gguf"), mo = !strcmp(tool, "modelopt");
    switch (t) {
    case GP_DTYPE_INT4: return gguf ? "Q4_K_M" : mo ? "int4_awq" : "W4A16";
    case GP_DTYPE_INT8: return gguf ? "Q8_0" : mo ? "int8_sq" : "W8A16";
    case GP_DTYPE_FP8: return gguf ? NULL : mo ? "fp8" : "FP8_DYNAMIC";
    case GP_DTYPE_FP4:
    case GP_DTYPE_MXFP4: return gguf ? NULL : mo ? "nvfp4" : "NVFP4A16";
    default: return NULL;
    }
}

static void llmc_script(gpx_buf *b, const gpx_ctx *c, const char *sch, const char *outdir)
{
    gpx_add(b,
            "# llm-compressor (pip install llmcompressor): data-free %s quantization of the linear\n"
            "# layers into a compressed-tensors checkpoint; %s reads its quantization_config and needs\n"
            "# no --quantization flag.\n",
            sch, c->engine_label);
    gpx_add(b, "OUT=${OUT:-%s}\n", outdir);
    gpx_add(b,
            "python3 - \"$OUT\" <<'PY'\n"
            "import sys\n"
            "from llmcompressor import oneshot\n"
            "from llmcompressor.modifiers.quantization import QuantizationModifier\n"
            "oneshot(model=\"%s\",\n"
            "        recipe=QuantizationModifier(targets=\"Linear\", scheme=\"%s\", ignore=[\"lm_head\"]),\n"
            "        output_dir=sys.argv[1])\n"
            "PY\n",
            c->model_path_raw, sch);
}

static void modelopt_script(gpx_buf *b, const gpx_ctx *c, const char *sch, const char *outdir)
{
    gpx_add(b,
            "# TensorRT Model Optimizer (github.com/NVIDIA/TensorRT-Model-Optimizer, examples/llm_ptq):\n"
            "# %s post-training quantization exported as a Hugging Face checkpoint, which trtllm-serve's\n"
            "# PyTorch backend loads as it is.\n",
            sch);
    gpx_add(b, "OUT=${OUT:-%s}\n", outdir);
    gpx_add(b,
            "python3 examples/llm_ptq/hf_ptq.py --pyt_ckpt_path %s --qformat %s --export_fmt hf \\\n"
            "  --export_path \"$OUT\"\n",
            c->model_path, sch);
}

static void gguf_script(gpx_buf *b, const gpx_ctx *c, const char *sch, const char *outfile)
{
    const char *base = strrchr(c->model_path_raw, '/');
    base = base ? base + 1 : c->model_path_raw;
    gpx_add(b,
            "# llama.cpp loads GGUF files: download the checkpoint, convert it (convert_hf_to_gguf.py\n"
            "# from a llama.cpp checkout) and, for %s weights, quantize it with llama-quantize.\n",
            sch ? sch : "16-bit");
    gpx_add(b, "huggingface-cli download %s --local-dir %s-hf\n", c->model_path, base);
    if (sch) {
        gpx_add(b, "python3 convert_hf_to_gguf.py %s-hf --outtype bf16 --outfile %s-BF16.gguf\n", base, base);
        gpx_add(b, "llama-quantize %s-BF16.gguf %s %s\n", base, outfile, sch);
    } else
        gpx_add(b, "python3 convert_hf_to_gguf.py %s-hf --outtype bf16 --outfile %s\n", base, outfile);
}

static void quant_raw(const gpx_ctx *c, const char *tool, char *raw, size_t n)
{
    const char *sch = scheme(tool, c->weights);
    const char *base = strrchr(c->model_path_raw, '/');
    base = base ? base + 1 : c->model_path_raw;
    /* raw holds the longest base (model_path_raw) plus a scheme of at most 40 characters (the
     * table's are under 16): nothing is cut */
    if (!strcmp(tool, "gguf"))
        snprintf(raw, n, "%s-%.40s.gguf", base, sch ? sch : "BF16");
    else
        snprintf(raw, n, "%s-%.40s", base, sch ? sch : "converted");
}

int gpx_quant_path(const gpx_ctx *c, const char *tool, char *path, size_t n)
{
    char raw[sizeof c->model_path_raw + 48];
    quant_raw(c, tool, raw, sizeof raw);
    gpx_shq(path, n, raw);
    return 1;
}

gp_status gpx_quantize_file(const gpx_ctx *c, const char *tool, gp_export_files *out, gp_error *err)
{
    const char *sch = scheme(tool, c->weights);
    int gguf = !strcmp(tool, "gguf");
    if (!sch && !gguf)
        return gpi_fail(err, GP_EUNSUPPORTED, "%s: no conversion to %s weights is known; plan another precision",
                        c->engine_label, gp_dtype_name(c->weights));
    char path[GP_ERROR_PATH_MAX];
    gpx_quant_path(c, tool, path, sizeof path);
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "quantize.sh");
    gpx_add(&b,
            "# Run once before launch.sh: it makes the %s weights the plan counts on, which the\n"
            "# engine cannot make while starting. launch.sh serves %s.\n",
            gguf && !sch ? "GGUF" : gp_dtype_name(c->weights), path);
    if (gguf)
        gguf_script(&b, c, sch, path);
    else if (!strcmp(tool, "modelopt"))
        modelopt_script(&b, c, sch, path);
    else
        llmc_script(&b, c, sch, path);
    gpx_note(out, "%s weights: run quantize.sh first (it writes %s, which launch.sh serves)",
             gguf && !sch ? "GGUF" : gp_dtype_name(c->weights), path);
    return gpx_emit(out, "quantize.sh", &b, 1, err);
}

/* A scheme exists for this tool and dtype (else the export is refused). */
int gpx_quant_known(const gpx_ctx *c, const char *tool)
{
    return scheme(tool, c->weights) != NULL || !strcmp(tool, "gguf");
}
