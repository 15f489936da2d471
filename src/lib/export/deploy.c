/*
 * deploy.c: running every replica of a serving plan behind one endpoint.
 *
 * deploy.json: a Kubernetes List (kubectl apply -f deploy.json) of
 *   - a Deployment (apps/v1) of `replicas` pods when one replica fits a node, or a
 *     LeaderWorkerSet (leaderworkerset.x-k8s.io/v1, the LWS controller) of `replicas` groups
 *     of one pod per node when a replica spans nodes (vLLM over Ray, SGLang --nnodes,
 *     TensorRT-LLM MPI ranks started by mpirun over ssh);
 *   - a Service (v1) in front of the pods (the leaders for LWS): the one endpoint;
 *   each engine container requests its GPUs (nvidia.com/gpu), reads the API key from a Secret
 *   (never from the file), and is ready when the engine's health endpoint answers.
 * Field names and required fields follow the Kubernetes OpenAPI definitions; the tests check
 * the manifests against tests/k8s/schema.json, which lists its sources.
 *
 * serve.sbatch: a Slurm job array, one array task per replica (an allocation of the replica's
 * nodes), each writing its head's host:port to endpoints/ for the load balancer in front.
 */
#include "export_impl.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    gpi_export_target e;
    const char *image;
} images[] = {
    {GPI_EXPORT_VLLM, "vllm/vllm-openai:v0.11.0"},
    {GPI_EXPORT_SGLANG, "lmsysorg/sglang:latest"},
    {GPI_EXPORT_TGI, "ghcr.io/huggingface/text-generation-inference:3.3.7"},
    {GPI_EXPORT_LLAMACPP, "ghcr.io/ggml-org/llama.cpp:server-cuda"},
    {GPI_EXPORT_TRTLLM, "nvcr.io/nvidia/tensorrt-llm/release:latest"},
};

static const char *image_of(gpi_export_target e)
{
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++)
        if (images[i].e == e)
            return images[i].image;
    return "IMAGE";
}

/* A DNS-1123 name from the served model name ("llama-3-1-70b-instruct"). */
static void k8s_name(const gpx_ctx *c, char *dst, size_t n)
{
    size_t k = 0;
    const char *s = c->served_name;
    for (; *s && k + 1 < n && k < 40; s++) {
        char ch = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
            dst[k++] = ch;
        else if (k > 0 && dst[k - 1] != '-')
            dst[k++] = '-';
    }
    while (k > 0 && dst[k - 1] == '-')
        k--;
    if (k == 0)
        gpi_strlcpy(dst, "gpuplan", n);
    else
        dst[k] = '\0';
}

static json_t *engine_container(const gpx_ctx *c, const char *cmdline, const char *secret, const char *health,
                                int probe)
{
    char *full = malloc(20480);
    if (!full)
        return NULL;
    snprintf(full, 20480, "%s%s", c->k8s_setup ? c->k8s_setup : "", cmdline);
    json_t *env = json_array();
    if (c->api_key_env[0])
        json_array_append_new(env, json_pack("{ss s{s{ss ss}}}", "name", c->api_key_env, "valueFrom", "secretKeyRef",
                                             "name", secret, "key", "api-key"));
    /* gated checkpoints (meta-llama/...) download with a Hugging Face token, when there is one */
    json_array_append_new(env, json_pack("{ss s{s{ss ss sb}}}", "name", "HF_TOKEN", "valueFrom", "secretKeyRef", "name",
                                         "hf-token", "key", "token", "optional", 1));
    json_t *ctr = json_pack("{ss ss s[ss] s[s] s[{si ss}] so s{s{sI} s{sI}} s[{ss ss}]}", "name", "engine", "image",
                            image_of(c->engine), "command", "/bin/sh", "-c", "args", full, "ports", "containerPort",
                            c->port, "name", "http", "env", env, "resources", "limits", "nvidia.com/gpu",
                            (json_int_t)(c->replica_gpus < c->gpus_per_node ? c->replica_gpus : c->gpus_per_node),
                            "requests", "nvidia.com/gpu",
                            (json_int_t)(c->replica_gpus < c->gpus_per_node ? c->replica_gpus : c->gpus_per_node),
                            "volumeMounts", "name", "shm", "mountPath", "/dev/shm");
    free(full);
    if (ctr && probe)
        json_object_set_new(ctr, "readinessProbe",
                            json_pack("{s{ss si} si si si}", "httpGet", "path", health, "port", c->port,
                                      "initialDelaySeconds", 60, "periodSeconds", 10, "failureThreshold", 90));
    return ctr;
}

static json_t *pod_spec(json_t *container)
{
    return json_pack("{s[o] s[{ss s{ss}}]}", "containers", container, "volumes", "name", "shm", "emptyDir", "medium",
                     "Memory");
}

static json_t *deployment(const gpx_ctx *c, const char *name, const char *cmdline, const char *secret,
                          const char *health)
{
    json_t *ctr = engine_container(c, cmdline, secret, health, 1);
    return json_pack("{ss ss s{ss s{ss}} s{si s{s{ss}} s{s{s{ss}} so}}}", "apiVersion", "apps/v1", "kind", "Deployment",
                     "metadata", "name", name, "labels", "app", name, "spec", "replicas", c->replicas, "selector",
                     "matchLabels", "app", name, "template", "metadata", "labels", "app", name, "spec", pod_spec(ctr));
}

/* Where a multi-node replica's head is and which node this one is: the LeaderWorkerSet controller
 * sets LWS_LEADER_ADDRESS and LWS_WORKER_INDEX in every pod of a group (lws v0.10.0
 * pkg/utils/pod/pod_utils.go AddLWSVariables); in a Slurm job the first node of the allocation
 * and SLURM_NODEID. */
typedef struct group_env {
    const char *head; /* shell word expanding to the head's address */
    const char *rank; /* shell word expanding to this node's index, 0 on the head */
} group_env;

static const group_env lws_env = {"$LWS_LEADER_ADDRESS", "$LWS_WORKER_INDEX"};
static const group_env slurm_env = {"$HEAD_ADDR", "$SLURM_NODEID"};

/* TensorRT-LLM over the pods of an LWS group: MPI ranks started by mpirun over ssh (sshd on
 * port 2222 in every pod, the key from a Secret), one rank per GPU of the copy (TP x PP x CP,
 * filling the pods in order), each through trtllm-llmapi-launch; rank 0 (the leader) serves HTTP. Worker i's host is
 * the leader's name with "-i" (lws v0.10.0 pkg/utils/accelerators/tpu.go: <leader>-<i>.<subdomain>). */
#define GPX_SSHD                                                                                                       \
    "command -v sshd >/dev/null || (apt-get update && apt-get install -y openssh-server openssh-client); "             \
    "ssh-keygen -A; mkdir -p /run/sshd $HOME/.ssh && cp /etc/gpuplan-ssh/* $HOME/.ssh/ && chmod 600 $HOME/.ssh/*; "    \
    "/usr/sbin/sshd -p 2222"

static void trtllm_group(const gpx_ctx *c, const char *cmdline, char *leader, char *worker, size_t n)
{
    int per_pod = c->replica_gpus < c->gpus_per_node ? c->replica_gpus : c->gpus_per_node;
    snprintf(leader, n,
             GPX_SSHD "; HOSTS=$LWS_LEADER_ADDRESS:%d; for i in $(seq 1 $((LWS_GROUP_SIZE - 1))); do "
                      "HOSTS=$HOSTS,${LWS_LEADER_ADDRESS%%%%.*}-$i.${LWS_LEADER_ADDRESS#*.}:%d; done; "
                      "exec mpirun --allow-run-as-root -np %d -H $HOSTS --mca plm_rsh_args "
                      "\"-p 2222 -o StrictHostKeyChecking=no\" -x PATH -x LD_LIBRARY_PATH ${HF_TOKEN:+-x HF_TOKEN} "
                      "trtllm-llmapi-launch %s",
             per_pod, per_pod, c->replica_gpus, cmdline);
    snprintf(worker, n, GPX_SSHD " -D");
}

/* Leader and worker commands of a multi-node replica. The shell sets NODE_RANK and HEAD_ADDR
 * before the command line reads them ("$NODE_RANK" in SGLang's flags). */
static void group_commands(const gpx_ctx *c, const char *cmdline, const group_env *g, char *leader, char *worker,
                           size_t n)
{
    if (c->engine == GPI_EXPORT_VLLM) {
        snprintf(leader, n, "ray start --head --port=6379 && %s", cmdline);
        snprintf(worker, n, "exec ray start --address=%s:6379 --block", g->head);
    } else if (c->engine == GPI_EXPORT_TRTLLM) {
        trtllm_group(c, cmdline, leader, worker, n);
    } else {
        snprintf(leader, n, "export NODE_RANK=%s HEAD_ADDR=%s; %s", g->rank, g->head, cmdline);
        snprintf(worker, n, "export NODE_RANK=%s HEAD_ADDR=%s; %s", g->rank, g->head, cmdline);
    }
}

static json_t *ssh_volume(const gpx_ctx *c, const char *name)
{
    (void)c;
    char secret[64];
    snprintf(secret, sizeof secret, "%s-ssh", name);
    return json_pack("{ss s{ss si}}", "name", "ssh", "secret", "secretName", secret, "defaultMode", 256);
}

static void add_ssh(const gpx_ctx *c, json_t *pod, const char *name)
{
    if (c->engine != GPI_EXPORT_TRTLLM || !pod)
        return;
    json_array_append_new(json_object_get(pod, "volumes"), ssh_volume(c, name));
    json_t *ctr = json_array_get(json_object_get(pod, "containers"), 0);
    json_array_append_new(json_object_get(ctr, "volumeMounts"),
                          json_pack("{ss ss sb}", "name", "ssh", "mountPath", "/etc/gpuplan-ssh", "readOnly", 1));
}

static json_t *leader_worker_set(const gpx_ctx *c, const char *name, const char *cmdline, const char *secret,
                                 const char *health)
{
    char *lead = malloc(8192), *work = malloc(8192);
    if (!lead || !work) {
        free(lead), free(work);
        return NULL;
    }
    group_commands(c, cmdline, &lws_env, lead, work, 8192);
    int size = (c->replica_gpus + c->gpus_per_node - 1) / c->gpus_per_node;
    json_t *lp = pod_spec(engine_container(c, lead, secret, health, 1));
    json_t *wp = pod_spec(engine_container(c, work, secret, health, 0));
    free(lead), free(work);
    add_ssh(c, lp, name);
    add_ssh(c, wp, name);
    return json_pack("{ss ss s{ss} s{si s{si s{s{s{ss}} so} s{so}}}}", "apiVersion", "leaderworkerset.x-k8s.io/v1",
                     "kind", "LeaderWorkerSet", "metadata", "name", name, "spec", "replicas", c->replicas,
                     "leaderWorkerTemplate", "size", size, "leaderTemplate", "metadata", "labels", "role", "leader",
                     "spec", lp, "workerTemplate", "spec", wp);
}

static json_t *service(const gpx_ctx *c, const char *name, int lws)
{
    json_t *sel = lws ? json_pack("{ss ss}", "leaderworkerset.sigs.k8s.io/name", name, "role", "leader")
                      : json_pack("{ss}", "app", name);
    return json_pack("{ss ss s{ss} s{ss so s[{ss si si}]}}", "apiVersion", "v1", "kind", "Service", "metadata", "name",
                     name, "spec", "type", "ClusterIP", "selector", sel, "ports", "name", "http", "port", c->port,
                     "targetPort", c->port);
}

static gp_status k8s_file(const gpx_ctx *c, const char *cmdline, const char *health, gp_export_files *out,
                          gp_error *err)
{
    char name[48], secret[64];
    k8s_name(c, name, sizeof name);
    snprintf(secret, sizeof secret, "%s-api-key", name);
    int lws = c->replica_gpus > c->gpus_per_node;
    json_t *work =
        lws ? leader_worker_set(c, name, cmdline, secret, health) : deployment(c, name, cmdline, secret, health);
    json_t *list =
        json_pack("{ss ss s[o o]}", "apiVersion", "v1", "kind", "List", "items", work, service(c, name, lws));
    char *text = list ? json_dumps(list, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(list);
    if (!text)
        return gpi_fail(err, GP_ENOMEM, "out of memory rendering deploy.json");
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_add(&b, "%s\n", text);
    free(text);
    if (c->api_key_env[0])
        gpx_note(out,
                 "Kubernetes: kubectl create secret generic %s --from-literal=api-key=\"$%s\" (and hf-token "
                 "with key token for a gated model); kubectl apply -f deploy.json (%d %s behind Service %s:%d%s)",
                 secret, c->api_key_env, c->replicas, lws ? "LeaderWorkerSet groups" : "pods", name, c->port,
                 lws ? "; needs the LeaderWorkerSet controller" : "");
    if (lws && c->engine == GPI_EXPORT_TRTLLM)
        gpx_note(out,
                 "Kubernetes: the pods of a group reach each other over ssh for mpirun: ssh-keygen -t ed25519 -N '' "
                 "-f id && kubectl create secret generic %s-ssh --from-file=id_ed25519=id "
                 "--from-file=authorized_keys=id.pub",
                 name);
    return gpx_emit(out, "deploy.json", &b, 0, err);
}

static gp_status sbatch_file(const gpx_ctx *c, const gpx_cmd *cmd, gp_export_files *out, gp_error *err)
{
    const gpi_export_job *job = c->job;
    char name[GP_NAME_MAX];
    gpx_shq(name, sizeof name, job->job_name && job->job_name[0] ? job->job_name : "gpuplan-serve");
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_add(&b, "#!/bin/bash\n");
    gpx_header(&b, c, "# ", "serve.sbatch");
    gpx_add(&b,
            "# %d replicas, one Slurm array task each: sbatch serve.sbatch. Each task writes its\n"
            "# host:port to endpoints/<task>; put a load balancer over them (one endpoint).\n",
            c->replicas);
    gpx_add(&b, "# Set your partition and account: remove one '#' from the two lines below.\n");
    gpx_add(&b, "##SBATCH --partition=PARTITION\n##SBATCH --account=ACCOUNT\n");
    gpx_add(&b, "#SBATCH --job-name=%s\n", name);
    gpx_add(&b, "#SBATCH --array=0-%d\n", c->replicas - 1);
    gpx_add(&b, "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n");
    gpx_add(&b, "#SBATCH --gpus-per-node=%d\n", c->replica_gpus);
    gpx_add(&b, "#SBATCH --cpus-per-task=%d\n", 8 * c->replica_gpus);
    gpx_add(&b, "#SBATCH --time=%s\n", job->time_limit && job->time_limit[0] ? job->time_limit : "7-00:00:00");
    gpx_add(&b, "#SBATCH --output=%%x-%%A_%%a.out\n\n");
    gpx_add(&b, "set -euo pipefail\n");
    gpx_api_key_var(&b, c);
    gpx_add(&b, "mkdir -p endpoints\n");
    gpx_add(&b, "echo \"$(hostname):%d\" > \"endpoints/$SLURM_ARRAY_TASK_ID\"\n", c->port);
    gpx_cmd_lines(&b, cmd, "  ");
    return gpx_emit(out, "serve.sbatch", &b, 1, err);
}

/* serve.sbatch for replicas that span nodes: one array task per replica, each an allocation
 * of the replica's nodes. TensorRT-LLM's command starts its MPI ranks itself (srun); vLLM
 * (Ray) and SGLang (--nnodes) run one process per node from node-<task>.sh. */
static void sbatch_group_body(gpx_buf *b, const gpx_ctx *c, const gpx_cmd *cmd, int nodes)
{
    if (c->engine == GPI_EXPORT_TRTLLM) {
        gpx_cmd_lines(b, cmd, "  ");
        return;
    }
    char *line = malloc(16384), *lead = malloc(16384), *work = malloc(16384);
    if (line && lead && work) {
        gpx_cmd_line(line, 16384, cmd);
        group_commands(c, line, &slurm_env, lead, work, 16384);
        gpx_add(b,
                "cat > \"node-$SLURM_ARRAY_TASK_ID.sh\" <<'EOF'\n#!/bin/bash\nset -euo pipefail\n"
                "if [ \"$SLURM_NODEID\" = 0 ]; then\n  %s\nelse\n  %s\nfi\nEOF\n",
                lead, work);
        gpx_add(b, "srun --nodes=%d --ntasks-per-node=1 bash \"node-$SLURM_ARRAY_TASK_ID.sh\"\n", nodes);
    } else
        b->failed = GP_ENOMEM;
    free(line), free(lead), free(work);
}

static gp_status sbatch_group_file(const gpx_ctx *c, const gpx_cmd *cmd, gp_export_files *out, gp_error *err)
{
    const gpi_export_job *job = c->job;
    int nodes = (c->replica_gpus + c->gpus_per_node - 1) / c->gpus_per_node;
    int ranks = c->engine == GPI_EXPORT_TRTLLM ? c->gpus_per_node : 1; /* tasks per node */
    char name[GP_NAME_MAX];
    gpx_shq(name, sizeof name, job->job_name && job->job_name[0] ? job->job_name : "gpuplan-serve");
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_add(&b, "#!/bin/bash\n");
    gpx_header(&b, c, "# ", "serve.sbatch");
    gpx_add(&b,
            "# %d replicas of %d nodes each, one Slurm array task per replica: sbatch serve.sbatch.\n"
            "# Each task writes its head node's host:port to endpoints/<task>; put a load balancer\n"
            "# over them (one endpoint).\n",
            c->replicas, nodes);
    gpx_add(&b, "# Set your partition and account: remove one '#' from the two lines below.\n");
    gpx_add(&b, "##SBATCH --partition=PARTITION\n##SBATCH --account=ACCOUNT\n");
    gpx_add(&b, "#SBATCH --job-name=%s\n#SBATCH --array=0-%d\n", name, c->replicas - 1);
    gpx_add(&b, "#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=%d\n", nodes, ranks);
    gpx_add(&b, "#SBATCH --gpus-per-node=%d\n#SBATCH --cpus-per-task=%d\n", c->gpus_per_node,
            8 * c->gpus_per_node / ranks);
    gpx_add(&b, "#SBATCH --mem=0\n#SBATCH --exclusive\n");
    gpx_add(&b, "#SBATCH --time=%s\n", job->time_limit && job->time_limit[0] ? job->time_limit : "7-00:00:00");
    gpx_add(&b, "#SBATCH --output=%%x-%%A_%%a.out\n\n");
    gpx_add(&b, "set -euo pipefail\n");
    gpx_api_key_var(&b, c);
    gpx_add(&b, "HEAD_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\nexport HEAD_ADDR\n");
    gpx_add(&b, "mkdir -p endpoints\n");
    gpx_add(&b, "echo \"$HEAD_ADDR:%d\" > \"endpoints/$SLURM_ARRAY_TASK_ID\"\n", c->port);
    sbatch_group_body(&b, c, cmd, nodes);
    return gpx_emit(out, "serve.sbatch", &b, 1, err);
}

/* The container's command line: launch.sh's without its srun launcher (the pods start the
 * ranks themselves). */
static void k8s_cmdline(const gpx_cmd *cmd, char *dst, size_t n)
{
    gpx_cmd *k = malloc(sizeof *k);
    if (!k) {
        dst[0] = '\0';
        return;
    }
    gpx_cmd_init(k);
    for (int i = 0; i < cmd->n; i++)
        if (strncmp(cmd->arg[i], "srun ", 5) != 0)
            gpx_arg(k, "%s", cmd->arg[i]);
    gpx_cmd_line(dst, n, k);
    free(k);
}

gp_status gpx_deploy_files(const gpx_ctx *c, const gpx_cmd *cmd, const char *health, const char *setup,
                           gp_export_files *out, gp_error *err)
{
    char *line = malloc(16384);
    if (!line)
        return gpi_fail(err, GP_ENOMEM, "out of memory rendering deploy.json");
    k8s_cmdline(cmd, line, 16384);
    gpx_ctx kc = *c;
    kc.k8s_setup = setup;
    /* vLLM and SGLang run their DP copies inside one server: one pod group (or allocation)
     * holds all of them; the other engines' DP copies are separate servers (their notes). */
    if (c->engine == GPI_EXPORT_VLLM || c->engine == GPI_EXPORT_SGLANG)
        kc.replica_gpus = c->replica_gpus * c->l.dp;
    gp_status st = k8s_file(&kc, line, health, out, err);
    free(line);
    if (st == GP_OK)
        st = kc.replica_gpus > kc.gpus_per_node ? sbatch_group_file(&kc, cmd, out, err)
                                                : sbatch_file(&kc, cmd, out, err);
    return st;
}
