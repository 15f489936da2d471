/*
 * megatron.c: `torchrun ... pretrain_gpt.py` with Megatron-LM arguments for a training layout.
 * Flags: docs/engines.md, section megatron (core_v0.19.0); the launcher's flags from its
 * torchrun section. Start-up rules are those of megatron/training/arguments.py validate_args
 * and megatron/core/transformer/transformer_config.py at core_v0.19.0 (file:line below); the
 * checker in tests/unit/engine_rules.c encodes the same rules.
 */
#include "export_impl.h"
#include "perf/train_internal.h"

/* How the decoder layers split over the pipeline stages. Megatron-LM splits evenly unless
 * --decoder-first/last-pipeline-num-layers are given (arguments.py:2942, :2946); then the
 * middle stages share the rest evenly (transformer_config.py:1987-2058: first/last > 0, the
 * middle layers divide by the middle stages, and with virtual stages every stage's count
 * divides by them). Returns 0 (even, first = last = 0), 1 (uneven) or -1 (no split). */
int gpx_pipeline_split(int64_t layers, int pp, int vpp, int64_t *first, int64_t *last)
{
    *first = *last = 0;
    if (pp <= 1)
        return 0;
    if (layers % pp == 0 && (layers / pp) % vpp == 0)
        return 0;
    int64_t best = -1;
    for (int64_t mid = layers / pp + 1; mid >= 1 && mid >= layers / pp - 1; mid--) {
        if (mid % vpp)
            continue;
        int64_t rest = layers - mid * (pp - 2);
        if (rest < 2)
            continue;
        int64_t f = rest / 2 / vpp * vpp, g = rest - f;
        if (f <= 0 || g <= 0 || g % vpp)
            continue;
        int64_t dev = (f > mid ? f - mid : mid - f) + (g > mid ? g - mid : mid - g);
        if (best < 0 || dev < best)
            best = dev, *first = f, *last = g;
        if (pp == 2)
            break;
    }
    return best < 0 ? -1 : 1;
}

static gp_status megatron_check(const gpx_ctx *c, gp_error *err)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    const gp_model *m = c->m;
    if (w->task != GP_TASK_TRAIN)
        return gpi_fail(err, GP_EUNSUPPORTED,
                        "Megatron-LM's pretrain_gpt.py trains every weight; a %s job needs adapters: export it "
                        "with deepspeed or torchrun-fsdp",
                        gp_task_name(w->task));
    if (w->optimizer == GP_OPT_ADAM8BIT || w->optimizer == GP_OPT_ADAFACTOR)
        return gpi_fail(err, GP_EUNSUPPORTED,
                        "Megatron-LM has no %s optimizer (adam, sgd, ...): plan with --optimizer adamw or sgd",
                        gp_optimizer_name(w->optimizer));
    if (w->offload == GP_OFFLOAD_PARAMS)
        return gpi_fail(err, GP_EUNSUPPORTED, "Megatron-LM does not offload parameters to CPU (only optimizer states)");
    if (w->offload == GP_OFFLOAD_OPTIMIZER && l->zero < 1)
        return gpi_fail(err, GP_EINVAL,
                        "Megatron-LM offloads optimizer states with the distributed optimizer: "
                        "use ZeRO 1 or more");
    if (m->layers <= 0 || m->hidden <= 0 || m->heads <= 0)
        return gpi_fail(err, GP_EINVAL, "the model's layers, hidden size and heads are needed for Megatron-LM");
    int64_t f, g;
    if (gpx_pipeline_split(m->layers, l->pp, l->virtual_stages, &f, &g) < 0)
        return gpi_fail(err, GP_EINVAL,
                        "%lld layers do not split into %d pipeline stages of %d virtual stages each, even with "
                        "uneven first and last stages (Megatron-LM transformer_config.py:1987-2058)",
                        (long long)m->layers, l->pp, l->virtual_stages);
    return GP_OK;
}

static void parallel_args(const gpx_ctx *c, gpx_cmd *cmd)
{
    const gp_layout *l = &c->l;
    gpx_arg(cmd, "--tensor-model-parallel-size %d", l->tp);
    gpx_arg(cmd, "--pipeline-model-parallel-size %d", l->pp);
    if (l->cp > 1)
        gpx_arg(cmd, "--context-parallel-size %d", l->cp);
    if (l->ep > 1)
        gpx_arg(cmd, "--expert-model-parallel-size %d", l->ep);
    if (l->sequence_parallel && l->tp > 1)
        gpx_arg(cmd, "--sequence-parallel");
    int64_t first, last;
    int uneven = gpx_pipeline_split(c->m->layers, l->pp, l->virtual_stages, &first, &last) == 1;
    if (uneven) {
        gpx_arg(cmd, "--decoder-first-pipeline-num-layers %lld", (long long)first);
        gpx_arg(cmd, "--decoder-last-pipeline-num-layers %lld", (long long)last);
        /* uneven stages take the virtual degree, not layers per virtual stage (arguments.py:921) */
        if (l->virtual_stages > 1)
            gpx_arg(cmd, "--num-virtual-stages-per-pipeline-rank %d", l->virtual_stages);
    } else if (l->virtual_stages > 1)
        gpx_arg(cmd, "--num-layers-per-virtual-pipeline-stage %lld",
                (long long)(c->m->layers / l->pp / l->virtual_stages));
}

static void attention_args(const gp_model *m, gpx_cmd *cmd)
{
    gpx_arg(cmd, "--num-layers %lld", (long long)m->layers);
    gpx_arg(cmd, "--hidden-size %lld", (long long)m->hidden);
    gpx_arg(cmd, "--num-attention-heads %lld", (long long)m->heads);
    if (m->kv_lora_rank > 0) {
        gpx_arg(cmd, "--multi-latent-attention");
        if (m->q_lora_rank > 0)
            gpx_arg(cmd, "--q-lora-rank %lld", (long long)m->q_lora_rank);
        gpx_arg(cmd, "--kv-lora-rank %lld", (long long)m->kv_lora_rank);
        gpx_arg(cmd, "--qk-head-dim %lld", (long long)m->qk_nope_head_dim);
        gpx_arg(cmd, "--qk-pos-emb-head-dim %lld", (long long)m->qk_rope_head_dim);
        gpx_arg(cmd, "--v-head-dim %lld", (long long)m->v_head_dim);
    } else {
        if (m->kv_heads > 0 && m->kv_heads < m->heads) {
            gpx_arg(cmd, "--group-query-attention");
            gpx_arg(cmd, "--num-query-groups %lld", (long long)m->kv_heads);
        }
        if (m->head_dim > 0 && m->head_dim * m->heads != m->hidden)
            gpx_arg(cmd, "--kv-channels %lld", (long long)m->head_dim);
    }
}

static void moe_args(const gpx_ctx *c, gpx_cmd *cmd, gp_export_files *out)
{
    const gp_model *m = c->m;
    const gp_layout *l = &c->l;
    if (m->experts <= 0)
        return;
    gpx_arg(cmd, "--num-experts %lld", (long long)m->experts);
    gpx_arg(cmd, "--moe-router-topk %lld", (long long)m->experts_active);
    gpx_arg(cmd, "--moe-ffn-hidden-size %lld", (long long)m->moe_ffn);
    if (m->shared_experts > 0)
        gpx_arg(cmd, "--moe-shared-expert-intermediate-size %lld",
                (long long)(m->shared_experts * (m->shared_expert_ffn > 0 ? m->shared_expert_ffn : m->moe_ffn)));
    if (m->dense_layers > 0 && m->dense_layers < m->layers)
        gpx_arg(cmd, "--moe-layer-freq '([0]*%lld+[1]*%lld)'", (long long)m->dense_layers,
                (long long)(m->layers - m->dense_layers));
    gpx_arg(cmd, "--moe-grouped-gemm");
    /* the flex dispatcher sends a token once per destination node (DeepEP / HybridEP, which must
     * be installed); Megatron-Core refuses DeepEP with padding to capacity, which is not set here
     * (transformer_config.py, __post_init__, moe_token_dispatcher_type == "flex") */
    if (l->ep > 1 && c->job->ep_dispatcher == GP_EP_DISPATCHER_ALLTOALL)
        gpx_arg(cmd, "--moe-token-dispatcher-type alltoall");
    else if (l->ep > 1)
        gpx_arg(cmd, "--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend %s",
                gpi_ep_dispatcher_name((gp_ep_dispatcher)c->job->ep_dispatcher));
    /* EP all-to-all overlapped with another micro-batch's expert GEMMs: Megatron-Core asserts
     * EP > 1, the alltoall/flex dispatcher, no full recomputation and, with PP > 1, interleaved
     * virtual stages (transformer_config.py:2674-2699); bf16/fp16 is always set here */
    if (c->job->ep_overlap && gpi_ep_overlap_admitted(m, l))
        gpx_arg(cmd, "--overlap-moe-expert-parallel-comm");
    else if (c->job->ep_overlap)
        gpx_note(out, "EP all-to-all overlap left out: Megatron-Core needs EP > 1, no full recomputation and, "
                      "with PP > 1, virtual pipeline stages (transformer_config.py:2674-2699)");
}

/* Position embedding and regularization as the checkpoint's config has them: Megatron's own
 * defaults are rotary base 10000 (arguments.py:2335) and dropout 0.1 (transformer_config.py:181,
 * :184), which are not Llama 3's (rope_theta 500000, llama3 rope scaling, no dropout). */
static void shape_args(const gpx_ctx *c, gpx_cmd *cmd, gp_export_files *out)
{
    const gp_model *m = c->m;
    const gp_workload *w = c->w;
    attention_args(m, cmd);
    if (m->ffn > 0)
        gpx_arg(cmd, "--ffn-hidden-size %lld", (long long)m->ffn);
    moe_args(c, cmd, out);
    gpx_arg(cmd, "--seq-length %lld", (long long)w->seq);
    gpx_arg(cmd, "--max-position-embeddings %lld", (long long)(m->max_context > w->seq ? m->max_context : w->seq));
    int rope = m->learned_pos <= 0;
    gpx_arg(cmd, "--position-embedding-type %s", rope ? "rope" : "learned_absolute");
    if (rope && m->rope_theta > 0)
        gpx_arg(cmd, "--rotary-base %lld", (long long)m->rope_theta);
    /* Megatron's rope scaling is Llama 3's (rotary_pos_embedding.py:92, low/high frequency
     * factors 1/4, original context 8192); the factor comes from the config (arguments.py:2343) */
    if (rope && gpi_strcaseeq(m->rope_scaling_type, "llama3")) {
        gpx_arg(cmd, "--use-rope-scaling");
        gpx_arg(cmd, "--rope-scaling-factor %g", m->rope_scaling_factor > 0 ? m->rope_scaling_factor : 8.0);
    }
    if (m->mlp == GP_MLP_GATED)
        gpx_arg(cmd, "--swiglu");
    if (m->norm == GP_NORM_RMS)
        gpx_arg(cmd, "--normalization RMSNorm");
    if (!m->qkv_bias && !m->o_bias && !m->mlp_bias)
        gpx_arg(cmd, "--disable-bias-linear");
    else if (m->qkv_bias && !m->o_bias && !m->mlp_bias) {
        gpx_arg(cmd, "--disable-bias-linear");
        gpx_arg(cmd, "--add-qkv-bias");
    }
    if (m->qk_norm)
        gpx_arg(cmd, "--qk-layernorm");
    if (!m->tied_embeddings)
        gpx_arg(cmd, "--untie-embeddings-and-output-weights");
    gpx_arg(cmd, "--attention-dropout 0");
    gpx_arg(cmd, "--hidden-dropout 0");
}

/* Batch, precision, sharding and recomputation. ZeRO-2/3 is Megatron-FSDP, which needs the
 * fsdp_dtensor checkpoint format (arguments.py:1146) and CUDA_DEVICE_MAX_CONNECTIONS unset
 * (arguments.py:1143, handled in gpx_megatron_vars); CPU optimizer offload needs the
 * precision-aware optimizer (arguments.py:1804). */
static void optim_args(const gpx_ctx *c, gpx_cmd *cmd, gp_export_files *out)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    gpx_arg(cmd, "--micro-batch-size %lld", (long long)l->micro_batch);
    gpx_arg(cmd, "--global-batch-size %lld", (long long)l->global_batch);
    if (c->act == GP_DTYPE_BF16)
        gpx_arg(cmd, "--bf16");
    else if (c->act == GP_DTYPE_F16)
        gpx_arg(cmd, "--fp16");
    if (c->weights == GP_DTYPE_FP8) {
        gpx_arg(cmd, "--fp8-format hybrid");
        /* recomputed norms and MoE activations refuse delayed scaling, the default recipe
         * (transformer_config.py:1822-1827): per-tensor current scaling instead */
        if (c->l.recompute_modules & (GP_RECOMPUTE_LAYERNORM | GP_RECOMPUTE_MOE_ACT))
            gpx_arg(cmd, "--fp8-recipe tensorwise");
    } else if (gp_dtype_bits(c->weights) < 16)
        gpx_note(out, "Megatron-LM trains in bf16/fp16/fp8: %s weights are not exported", gp_dtype_name(c->weights));
    if (l->zero >= 1)
        gpx_arg(cmd, "--use-distributed-optimizer");
    if (l->zero >= 2) {
        gpx_arg(cmd, "--use-megatron-fsdp");
        gpx_arg(cmd, "--data-parallel-sharding-strategy %s", l->zero == 2 ? "optim_grads" : "optim_grads_params");
    }
    gpx_arg(cmd, "--ckpt-format %s", l->zero >= 2 ? "fsdp_dtensor" : "torch_dist");
    if (w->offload == GP_OFFLOAD_OPTIMIZER) {
        gpx_arg(cmd, "--optimizer-cpu-offload");
        gpx_arg(cmd, "--use-precision-aware-optimizer");
    }
    gpx_arg(cmd, "--optimizer %s", w->optimizer == GP_OPT_SGD ? "sgd" : "adam");
    if (l->recompute == GP_RECOMPUTE_SELECTIVE && l->recompute_modules) {
        /* the modules by Megatron-Core's names (transformer_config.py:1768-1781); moe_act needs
         * the grouped GEMM (:1786: given for every MoE model above), mla_up_proj MLA (:1791) */
        char mods[96];
        gpi_recompute_modules_format(l->recompute_modules, " ", mods, sizeof mods);
        gpx_arg(cmd, "--recompute-granularity selective");
        gpx_arg(cmd, "--recompute-modules %s", mods);
    } else if (l->recompute == GP_RECOMPUTE_SELECTIVE)
        gpx_arg(cmd, "--recompute-activations");
    else if (l->recompute == GP_RECOMPUTE_FULL) {
        gpx_arg(cmd, "--recompute-granularity full");
        gpx_arg(cmd, "--recompute-method uniform");
        gpx_arg(cmd, "--recompute-num-layers 1");
    }
}

/* Schedule, checkpoints, evaluation and data, read from the script's variables. */
static void run_args(gpx_cmd *cmd)
{
    gpx_arg(cmd, "--train-iters \"$TRAIN_ITERS\"");
    gpx_arg(cmd, "--lr \"$LR\"");
    gpx_arg(cmd, "--min-lr \"$MIN_LR\"");
    gpx_arg(cmd, "--lr-decay-style cosine");
    gpx_arg(cmd, "--lr-decay-iters \"$TRAIN_ITERS\"");
    gpx_arg(cmd, "--lr-warmup-iters \"$WARMUP_ITERS\"");
    gpx_arg(cmd, "--weight-decay 0.1");
    gpx_arg(cmd, "--clip-grad 1.0");
    gpx_arg(cmd, "--save \"$CKPT_DIR\"");
    gpx_arg(cmd, "--load \"$CKPT_DIR\"");
    gpx_arg(cmd, "--save-interval \"$SAVE_INTERVAL\"");
    gpx_arg(cmd, "--eval-interval \"$EVAL_INTERVAL\"");
    gpx_arg(cmd, "--eval-iters 10");
    gpx_arg(cmd, "--log-interval 10");
    gpx_arg(cmd, "--data-path \"$DATA_PATH\"");
    gpx_arg(cmd, "--split 99,1,0");
    gpx_arg(cmd, "--tokenizer-type HuggingFaceTokenizer");
    gpx_arg(cmd, "--tokenizer-model \"$TOKENIZER\"");
}

gp_status gpx_megatron_args(const gpx_ctx *c, gpx_cmd *cmd, gp_export_files *out, gp_error *err)
{
    gp_status st = megatron_check(c, err);
    if (st != GP_OK)
        return st;
    gpx_arg(cmd, "pretrain_gpt.py");
    parallel_args(c, cmd);
    shape_args(c, cmd, out);
    optim_args(c, cmd, out);
    run_args(cmd);
    if (cmd->overflow)
        return gpi_fail(err, GP_ELIMIT, "Megatron-LM command line too long");
    return GP_OK;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The variables the Megatron arguments read, with their defaults. */
void gpx_megatron_vars(gpx_buf *b, const gpx_ctx *c)
{
    char tok[GP_ERROR_PATH_MAX];
    const char *name = c->m->name[0] ? c->m->name : c->m->id;
    if (c->l.zero >= 2)
        gpx_add(b, "unset CUDA_DEVICE_MAX_CONNECTIONS  # Megatron-FSDP refuses 1 (arguments.py:1143)\n");
    else if (c->job->ep_overlap && gpi_ep_overlap_admitted(c->m, &c->l) && c->l.tp <= 1 && c->l.cp <= 1)
        gpx_add(b, "export CUDA_DEVICE_MAX_CONNECTIONS=32  # the EP all-to-all overlap wants more than 1 "
                   "(arguments.py:1426)\n");
    else
        gpx_add(b, "export CUDA_DEVICE_MAX_CONNECTIONS=1  # TP/CP before Blackwell needs 1 (arguments.py:1437)\n");
    gpx_add(b, "DATA_PATH=${DATA_PATH:-%s}  # Megatron indexed dataset prefix; split 99/1/0 train/valid/test\n",
            c->data_path);
    gpx_add(b, "TOKENIZER=${TOKENIZER:-%s}\n", gpx_shq(tok, sizeof tok, name));
    gpx_add(b, "CKPT_DIR=${CKPT_DIR:-checkpoints}  # --save and --load: a restart resumes from the latest\n");
    int64_t iters = c->train_iters > 0 ? c->train_iters : 1000;
    if (c->train_iters > 0)
        gpx_add(b, "TRAIN_ITERS=${TRAIN_ITERS:-%lld}  # tokens / (global batch %lld x seq %lld)\n",
                (long long)c->train_iters, (long long)c->l.global_batch, (long long)c->w->seq);
    else
        gpx_add(b, "TRAIN_ITERS=${TRAIN_ITERS:-1000}  # optimizer steps (no --tokens given)\n");
    gpx_add(b, "WARMUP_ITERS=${WARMUP_ITERS:-%lld}  # 1%% of the steps, at most 2000\n",
            (long long)clamp64(iters / 100, 1, 2000));
    gpx_add(b, "SAVE_INTERVAL=${SAVE_INTERVAL:-%lld}  # a checkpoint every this many steps\n",
            (long long)clamp64(iters / 10, 1, 1000));
    gpx_add(b, "EVAL_INTERVAL=${EVAL_INTERVAL:-%lld}  # validation loss on 10 batches every this many steps\n",
            (long long)clamp64(iters / 10, 1, 1000));
    gpx_add(b, "LR=${LR:-3.0e-4}  # peak learning rate: set yours\n");
    gpx_add(b, "MIN_LR=${MIN_LR:-3.0e-5}  # end of the cosine decay\n");
}

gp_status gpx_render_megatron(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_torchrun_args(c, &cmd, 0);
    gp_status st = gpx_megatron_args(c, &cmd, out, err);
    if (st != GP_OK)
        return st;
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    gpx_add(&b, "# Run from a Megatron-LM checkout (core_v0.19.0)");
    if (c->nodes > 1)
        gpx_add(&b,
                " on each of the %d nodes, with MASTER_ADDR the address of node 0.\n"
                "MASTER_ADDR=${MASTER_ADDR:?set MASTER_ADDR to node 0}\n",
                c->nodes);
    else
        gpx_add(&b, ".\n");
    gpx_megatron_vars(&b, c);
    gpx_add(&b, "\n");
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    if (c->nodes > 1)
        gpx_note(out, "multi-node: run launch.sh on each of the %d nodes with MASTER_ADDR set", c->nodes);
    return gpx_emit(out, "launch.sh", &b, 1, err);
}
