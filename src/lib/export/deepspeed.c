/*
 * deepspeed.c: ds_config.json + a `deepspeed` launcher line for a training layout. Keys and
 * flags: shared/reference/engines.md, section deepspeed (v0.19.5). DeepSpeed shards over data
 * parallelism (ZeRO 0..3) and, with AutoTP, tensor parallelism; pipeline and context
 * parallelism need the model rewritten (PipelineModule, Ulysses) and are refused.
 *
 * ds_config.json is strict JSON (no comment): Hugging Face's integration reads it with
 * json.load. Its version line is in launch.sh, which names it.
 */
#include "export_impl.h"

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
        return gpi_fail(err, GP_EINVAL, "DeepSpeed offloads optimizer states only under ZeRO 1..3 (this layout: ZeRO-0)");

    gpx_buf j;
    gpx_buf_init(&j);
    gpx_add(&j, "{\n");
    gpx_add(&j, "  \"train_batch_size\": %lld,\n", (long long)l->global_batch);
    gpx_add(&j, "  \"train_micro_batch_size_per_gpu\": %lld,\n", (long long)l->micro_batch);
    gpx_add(&j, "  \"gradient_accumulation_steps\": %lld,\n", (long long)c->grad_accum);
    gpx_add(&j, "  \"gradient_clipping\": 1.0,\n");
    if (c->act == GP_DTYPE_F16)
        gpx_add(&j, "  \"fp16\": {\n    \"enabled\": true\n  },\n");
    else if (c->act == GP_DTYPE_BF16)
        gpx_add(&j, "  \"bf16\": {\n    \"enabled\": true\n  },\n");
    if (c->weights == GP_DTYPE_FP8)
        gpx_note(out, "DeepSpeed's config has no FP8 training switch: bf16 is written (FP8 GEMMs come from "
                      "Transformer Engine in the model code)");
    if (l->tp > 1)
        gpx_add(&j, "  \"tensor_parallel\": {\n    \"autotp_size\": %d\n  },\n", l->tp);
    gpx_add(&j, "  \"zero_optimization\": {\n    \"stage\": %d", l->zero);
    if (l->zero > 0)
        gpx_add(&j, ",\n    \"overlap_comm\": true,\n    \"contiguous_gradients\": true");
    if (w->offload == GP_OFFLOAD_OPTIMIZER || w->offload == GP_OFFLOAD_PARAMS)
        gpx_add(&j, ",\n    \"offload_optimizer\": {\n      \"device\": \"cpu\",\n      \"pin_memory\": true\n    }");
    if (w->offload == GP_OFFLOAD_PARAMS)
        gpx_add(&j, ",\n    \"offload_param\": {\n      \"device\": \"cpu\",\n      \"pin_memory\": true\n    }");
    gpx_add(&j, "\n  }\n}\n");

    if (l->recompute != GP_RECOMPUTE_NONE)
        gpx_note(out, "activation recomputation (%s) is switched on in the training script (gradient "
                      "checkpointing), not in ds_config.json",
                 gp_recompute_name(l->recompute));
    if (l->ep > 1)
        gpx_note(out, "expert parallelism (EP %d) comes from the model code (deepspeed.moe), not ds_config.json",
                 l->ep);
    if (w->optimizer != GP_OPT_ADAMW)
        gpx_note(out, "optimizer %s: create it in the training script (ds_config.json leaves the optimizer to it)",
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
