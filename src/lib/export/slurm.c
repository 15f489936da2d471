/*
 * slurm.c: an sbatch script that runs the training layout with `srun torchrun`: Megatron-LM
 * for full training, FSDP (fsdp_config.py) for LoRA/QLoRA. #SBATCH options: docs/engines.md,
 * section slurm_sbatch (slurm-26-05-3-1); one task per node, torchrun starts the GPUs'
 * processes; --mem=0 gives the job all of each node's memory (sbatch: "a special case"), and
 * the partition and account lines are placeholders to enable.
 */
#include "export_impl.h"

gp_status gpx_render_slurm(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    const gpi_export_job *job = c->job;
    int megatron = c->w->task == GP_TASK_TRAIN;
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_torchrun_args(c, &cmd, 1);
    gp_status st = GP_OK;
    if (megatron)
        st = gpx_megatron_args(c, &cmd, out, err);
    else
        gpx_arg(&cmd, "train.py");
    if (st != GP_OK)
        return st;
    if (cmd.overflow)
        return gpi_fail(err, GP_ELIMIT, "Slurm command line too long");
    int per_node = c->nodes > 1 ? c->gpus_per_node : c->gpus;
    int cpus = job->cpus_per_task > 0 ? job->cpus_per_task : 8 * per_node;
    char name[GP_NAME_MAX];
    gpx_shq(name, sizeof name, job->job_name && job->job_name[0] ? job->job_name : "gpuplan");
    char tl[64];
    gpx_shq(tl, sizeof tl, job->time_limit && job->time_limit[0] ? job->time_limit : "24:00:00");

    gpx_buf b;
    gpx_buf_init(&b);
    gpx_add(&b, "#!/bin/bash\n");
    gpx_header(&b, c, "# ", "job.sbatch");
    gpx_add(&b, "# Set your partition and account: remove one '#' from the two lines below.\n");
    gpx_add(&b, "##SBATCH --partition=PARTITION\n##SBATCH --account=ACCOUNT\n");
    gpx_add(&b, "#SBATCH --job-name=%s\n", name);
    gpx_add(&b, "#SBATCH --nodes=%d\n", c->nodes);
    gpx_add(&b, "#SBATCH --ntasks-per-node=1\n");
    gpx_add(&b, "#SBATCH --gpus-per-node=%d\n", per_node);
    gpx_add(&b, "#SBATCH --cpus-per-task=%d\n", cpus);
    gpx_add(&b, "#SBATCH --time=%s\n", tl);
    gpx_add(&b, "#SBATCH --mem=0\n");
    gpx_add(&b, "#SBATCH --exclusive\n");
    gpx_add(&b, "#SBATCH --output=%%x-%%j.out\n\n");
    gpx_add(&b, "set -euo pipefail\n");
    gpx_add(&b, "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n");
    gpx_add(&b, "export MASTER_ADDR\n");
    if (megatron) {
        gpx_add(&b, "# Submit from a Megatron-LM checkout (core_v0.19.0): sbatch job.sbatch\n");
        gpx_megatron_vars(&b, c);
    } else
        gpx_add(&b, "# train.py is your training script; it wraps the model with fsdp_config.wrap().\n");
    gpx_add(&b, "\n");
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    st = gpx_emit(out, "job.sbatch", &b, 1, err);
    if (st == GP_OK && !megatron)
        st = gpx_fsdp_file(c, out, err);
    return st;
}
