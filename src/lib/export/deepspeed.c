/*
 * deepspeed.c: ds_config.json + a `deepspeed` launcher line for a training layout. Keys and
 * flags: docs/engines.md, section deepspeed (v0.19.5). Start-up rules (deepspeed/runtime/
 * config.py at v0.19.5): without an mpu the batch is counted over every rank, AutoTP's too
 * (config.py:712, asserted at :924: train_batch_size = micro x gradient_accumulation x world);
 * ZeRO-Offload with a client optimizer is refused (zero_force_ds_cpu_optimizer,
 * runtime/engine.py:1998), so the config names the optimizer and its scheduler itself. DeepSpeed shards over data
 * parallelism (ZeRO 0..3) and, with AutoTP, tensor parallelism; pipeline and context
 * parallelism need the model rewritten (PipelineModule, Ulysses) and are refused.
 *
 * ds_config.json is strict JSON (no comment): Hugging Face's integration reads it with
 * json.load. Its version line is in launch.sh, which names it.
 */
#include "export_impl.h"

/* The optimizer and its schedule, in the config so that DeepSpeed builds them (its CPU Adam
 * under ZeRO-Offload). WarmupCosineLR: warm-up over 1% of the steps, cosine to 10%. */
static void optimizer_blocks(gpx_buf *j, const gpx_ctx *c)
{
    const gp_workload *w = c->w;
    int64_t steps = c->train_iters > 0 ? c->train_iters : 1000;
    int64_t warm = steps / 100 > 0 ? steps / 100 : 1;
    if (w->optimizer == GP_OPT_SGD)
        gpx_add(j, "  \"optimizer\": {\n    \"type\": \"SGD\",\n    \"params\": {\n      \"lr\": 3.0e-4,\n"
                   "      \"momentum\": 0.9\n    }\n  },\n");
    else
        gpx_add(j, "  \"optimizer\": {\n    \"type\": \"AdamW\",\n    \"params\": {\n      \"lr\": 3.0e-4,\n"
                   "      \"betas\": [0.9, 0.95],\n      \"eps\": 1e-8,\n      \"weight_decay\": 0.1\n    }\n  },\n");
    gpx_add(j,
            "  \"scheduler\": {\n    \"type\": \"WarmupCosineLR\",\n    \"params\": {\n"
            "      \"total_num_steps\": %lld,\n      \"warmup_num_steps\": %lld,\n      \"cos_min_ratio\": 0.1\n"
            "    }\n  },\n",
            (long long)steps, (long long)warm);
}

/* ds_config.json: batch, precision, optimizer and schedule, AutoTP, ZeRO and offload. */
static void ds_config(gpx_buf *j, const gpx_ctx *c, gp_export_files *out)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    /* every rank counts (config.py:712): the TP ranks of an AutoTP group read the same batch */
    int64_t world = (int64_t)c->gpus;
    gpx_add(j, "{\n");
    gpx_add(j, "  \"train_batch_size\": %lld,\n", (long long)(l->micro_batch * c->grad_accum * world));
    gpx_add(j, "  \"train_micro_batch_size_per_gpu\": %lld,\n", (long long)l->micro_batch);
    gpx_add(j, "  \"gradient_accumulation_steps\": %lld,\n", (long long)c->grad_accum);
    gpx_add(j, "  \"gradient_clipping\": 1.0,\n");
    if (c->act == GP_DTYPE_F16)
        gpx_add(j, "  \"fp16\": {\n    \"enabled\": true\n  },\n");
    else if (c->act == GP_DTYPE_BF16)
        gpx_add(j, "  \"bf16\": {\n    \"enabled\": true\n  },\n");
    if (c->weights == GP_DTYPE_FP8)
        gpx_note(out, "DeepSpeed's config has no FP8 training switch: bf16 is written (FP8 GEMMs come from "
                      "Transformer Engine in the model code)");
    optimizer_blocks(j, c);
    if (l->tp > 1)
        gpx_add(j, "  \"tensor_parallel\": {\n    \"autotp_size\": %d\n  },\n", l->tp);
    gpx_add(j, "  \"zero_optimization\": {\n    \"stage\": %d", l->zero);
    if (l->zero > 0)
        gpx_add(j, ",\n    \"overlap_comm\": true,\n    \"contiguous_gradients\": true");
    if (l->zero == 3)
        gpx_add(j, ",\n    \"stage3_gather_16bit_weights_on_model_save\": true");
    if (w->offload == GP_OFFLOAD_OPTIMIZER || w->offload == GP_OFFLOAD_PARAMS)
        gpx_add(j, ",\n    \"offload_optimizer\": {\n      \"device\": \"cpu\",\n      \"pin_memory\": true\n    }");
    if (w->offload == GP_OFFLOAD_PARAMS)
        gpx_add(j, ",\n    \"offload_param\": {\n      \"device\": \"cpu\",\n      \"pin_memory\": true\n    }");
    gpx_add(j, "\n  }\n}\n");
    if (l->tp > 1)
        gpx_note(out,
                 "AutoTP %d: DeepSpeed counts train_batch_size over all %d ranks (%lld), each TP group of %d "
                 "reads the same micro-batch: %lld distinct sequences per step, as planned",
                 l->tp, c->gpus, (long long)(l->micro_batch * c->grad_accum * world), l->tp,
                 (long long)l->global_batch);
}

gp_status gpx_render_deepspeed(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    if (l->pp > 1 || l->cp > 1)
        return gpi_fail(err, GP_EUNSUPPORTED,
                        "DeepSpeed pipeline (PP %d) and sequence (CP %d) parallelism need the model rewritten "
                        "(PipelineModule, Ulysses): export this layout with megatron",
                        l->pp, l->cp);
    if (w->offload == GP_OFFLOAD_PARAMS && l->zero < 3)
        return gpi_fail(err, GP_EINVAL, "DeepSpeed offloads parameters only under ZeRO-3 (this layout: ZeRO-%d)",
                        l->zero);
    if (w->offload == GP_OFFLOAD_OPTIMIZER && l->zero < 1)
        return gpi_fail(err, GP_EINVAL,
                        "DeepSpeed offloads optimizer states only under ZeRO 1..3 (this layout: ZeRO-0)");

    gpx_buf j;
    gpx_buf_init(&j);
    ds_config(&j, c, out);

    if (l->recompute != GP_RECOMPUTE_NONE)
        gpx_note(out,
                 "activation recomputation (%s) is switched on in the training script (gradient "
                 "checkpointing), not in ds_config.json",
                 gp_recompute_name(l->recompute));
    if (l->ep > 1)
        gpx_note(out, "expert parallelism (EP %d) comes from the model code (deepspeed.moe), not ds_config.json",
                 l->ep);
    if (w->optimizer != GP_OPT_ADAMW && w->optimizer != GP_OPT_SGD)
        gpx_note(out, "optimizer %s: DeepSpeed has no such config optimizer; AdamW is written",
                 gp_optimizer_name(w->optimizer));

    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_arg(&cmd, "deepspeed");
    if (c->nodes > 1)
        gpx_arg(&cmd, "--hostfile hostfile");
    gpx_arg(&cmd, "--num_nodes %d", c->nodes);
    gpx_arg(&cmd, "--num_gpus %d", c->nodes > 1 ? c->gpus_per_node : c->gpus);
    gpx_arg(&cmd, "train.py");
    gpx_arg(&cmd, "--deepspeed");
    gpx_arg(&cmd, "--deepspeed_config ds_config.json");
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    gpx_add(&b, "# train.py is your training script: it calls deepspeed.add_config_arguments(parser) and\n"
                "# deepspeed.initialize(args=args, model=model, ...); ds_config.json holds the layout.\n");
    if (c->nodes > 1)
        gpx_add(&b, "# hostfile lists the %d nodes (replace the names), %d GPU slots each.\n", c->nodes,
                c->gpus_per_node);
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    gp_status st = gpx_emit(out, "ds_config.json", &j, 0, err);
    if (st == GP_OK)
        st = gpx_emit(out, "launch.sh", &b, 1, err);
    else
        gpx_buf_free(&b);
    if (st == GP_OK && c->nodes > 1) {
        gpx_buf h;
        gpx_buf_init(&h);
        gpx_add(&h, "# DeepSpeed hostfile: one line per node, \"hostname slots=GPUs\" (%s)\n", c->version);
        for (int i = 0; i < c->nodes; i++)
            gpx_add(&h, "node-%d slots=%d\n", i, c->gpus_per_node);
        st = gpx_emit(out, "hostfile", &h, 0, err);
    }
    return st;
}
