/*
 * deploy.c: running every replica of a serving plan behind one endpoint.
 *
 * deploy.json: a Kubernetes List (kubectl apply -f deploy.json) of
 *   - a Deployment (apps/v1) of `replicas` pods when one replica fits a node, or a
 *     LeaderWorkerSet (leaderworkerset.x-k8s.io/v1, the LWS controller) of `replicas` groups
 *     of one pod per node when a replica spans nodes (vLLM over Ray, SGLang --nnodes);
 *   - a Service (v1) in front of the pods (the leaders for LWS): the one endpoint;
 *   each engine container requests its GPUs (nvidia.com/gpu), reads the API key from a Secret
 *   (never from the file), and is ready when the engine's health endpoint answers.
 * Field names and required fields follow the Kubernetes OpenAPI definitions; the tests check
 * the manifests against tests/k8s/schema.json, which lists its sources.
 *
 * serve.sbatch: a Slurm job array, one array task per replica (single-node replicas), each
 * writing its host:port to endpoints/ for the load balancer in front.
 */
#include "export_impl.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    gp_export_engine e;
    const char *image;
} images[] = {
    {GP_EXPORT_VLLM, "vllm/vllm-openai:v0.11.0"},
    {GP_EXPORT_SGLANG, "lmsysorg/sglang:latest"},
    {GP_EXPORT_TGI, "ghcr.io/huggingface/text-generation-inference:3.3.7"},
    {GP_EXPORT_LLAMACPP, "ghcr.io/ggml-org/llama.cpp:server-cuda"},
    {GP_EXPORT_TRTLLM, "nvcr.io/nvidia/tensorrt-llm/release:latest"},
};

static const char *image_of(gp_export_engine e)
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
    json_t *env = json_array();
    if (c->api_key_env[0])
        json_array_append_new(env, json_pack("{ss s{s{ss ss}}}", "name", c->api_key_env, "valueFrom",
                                             "secretKeyRef", "name", secret, "key", "api-key"));
    /* gated checkpoints (meta-llama/...) download with a Hugging Face token, when there is one */
    json_array_append_new(env, json_pack("{ss s{s{ss ss sb}}}", "name", "HF_TOKEN", "valueFrom", "secretKeyRef", "name",
                                         "hf-token", "key", "token", "optional", 1));
    json_t *ctr = json_pack("{ss ss s[ss] s[s] s[{si ss}] so s{s{sI} s{sI}} s[{ss ss}]}", "name", "engine", "image",
                            image_of(c->engine), "command", "/bin/sh", "-c", "args", cmdline, "ports",
                            "containerPort", c->port, "name", "http", "env", env, "resources", "limits",
                            "nvidia.com/gpu", (json_int_t)(c->replica_gpus < c->gpus_per_node ? c->replica_gpus
                                                                                               : c->gpus_per_node),
                            "requests", "nvidia.com/gpu",
                            (json_int_t)(c->replica_gpus < c->gpus_per_node ? c->replica_gpus : c->gpus_per_node),
                            "volumeMounts", "name", "shm", "mountPath", "/dev/shm");
    if (ctr && probe)
        json_object_set_new(ctr, "readinessProbe",
                            json_pack("{s{ss si} si si si}", "httpGet", "path", health, "port", c->port,
                                      "initialDelaySeconds", 60, "periodSeconds", 10, "failureThreshold", 90));
    return ctr;
}

static json_t *pod_spec(json_t *container)
{
    return json_pack("{s[o] s[{ss s{ss}}]}", "containers", container, "volumes", "name", "shm", "emptyDir",
                     "medium", "Memory");
}

static json_t *deployment(const gpx_ctx *c, const char *name, const char *cmdline, const char *secret,
                          const char *health)
{
    json_t *ctr = engine_container(c, cmdline, secret, health, 1);
    return json_pack("{ss ss s{ss s{ss}} s{si s{s{ss}} s{s{s{ss}} so}}}", "apiVersion", "apps/v1", "kind",
                     "Deployment", "metadata", "name", name, "labels", "app", name, "spec", "replicas", c->replicas,
                     "selector", "matchLabels", "app", name, "template", "metadata", "labels", "app", name, "spec",
                     pod_spec(ctr));
}

/* Leader and worker commands of a multi-node replica (LWS sets LWS_LEADER_ADDRESS and
 * LWS_WORKER_INDEX in every pod of a group). */
static void group_commands(const gpx_ctx *c, const char *cmdline, char *leader, char *worker, size_t n)
{
    if (c->engine == GP_EXPORT_VLLM) {
        snprintf(leader, n, "ray start --head --port=6379 && %s", cmdline);
        snprintf(worker, n, "ray start --address=$LWS_LEADER_ADDRESS:6379 --block");
    } else {
        snprintf(leader, n, "NODE_RANK=$LWS_WORKER_INDEX HEAD_ADDR=$LWS_LEADER_ADDRESS %s", cmdline);
        snprintf(worker, n, "NODE_RANK=$LWS_WORKER_INDEX HEAD_ADDR=$LWS_LEADER_ADDRESS %s", cmdline);
    }
}

static json_t *leader_worker_set(const gpx_ctx *c, const char *name, const char *cmdline, const char *secret,
                                 const char *health)
{
    char *lead = malloc(8192), *work = malloc(8192);
    if (!lead || !work) {
        free(lead), free(work);
        return NULL;
    }
    group_commands(c, cmdline, lead, work, 8192);
    int size = (c->replica_gpus + c->gpus_per_node - 1) / c->gpus_per_node;
    json_t *lc = engine_container(c, lead, secret, health, 1);
    json_t *wc = engine_container(c, work, secret, health, 0);
    free(lead), free(work);
    return json_pack("{ss ss s{ss} s{si s{si s{s{s{ss}} so} s{so}}}}", "apiVersion", "leaderworkerset.x-k8s.io/v1",
                     "kind", "LeaderWorkerSet", "metadata", "name", name, "spec", "replicas", c->replicas,
                     "leaderWorkerTemplate", "size", size, "leaderTemplate", "metadata", "labels", "role", "leader",
                     "spec", pod_spec(lc), "workerTemplate", "spec", pod_spec(wc));
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
    if (lws && c->engine != GP_EXPORT_VLLM && c->engine != GP_EXPORT_SGLANG) {
        gpx_note(out, "deploy.json not written: %s replicas over %d nodes have no Kubernetes recipe here",
                 c->engine_label, (c->replica_gpus + c->gpus_per_node - 1) / c->gpus_per_node);
        return GP_OK;
    }
    json_t *work = lws ? leader_worker_set(c, name, cmdline, secret, health)
                       : deployment(c, name, cmdline, secret, health);
    json_t *list = json_pack("{ss ss s[o o]}", "apiVersion", "v1", "kind", "List", "items", work, service(c, name, lws));
    char *text = list ? json_dumps(list, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(list);
    if (!text)
        return gpi_fail(err, GP_ENOMEM, "out of memory rendering deploy.json");
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_add(&b, "%s\n", text);
    free(text);
    if (c->api_key_env[0])
        gpx_note(out, "Kubernetes: kubectl create secret generic %s --from-literal=api-key=\"$%s\" (and hf-token "
                      "with key token for a gated model); kubectl apply -f deploy.json (%d %s behind Service %s:%d%s)",
                 secret, c->api_key_env, c->replicas, lws ? "LeaderWorkerSet groups" : "pods", name, c->port,
                 lws ? "; needs the LeaderWorkerSet controller" : "");
    return gpx_emit(out, "deploy.json", &b, 0, err);
}

static gp_status sbatch_file(const gpx_ctx *c, const gpx_cmd *cmd, gp_export_files *out, gp_error *err)
{
    if (c->replica_gpus > c->gpus_per_node) {
        gpx_note(out, "serve.sbatch not written: a replica spans nodes; run the replicas with deploy.json");
        return GP_OK;
    }
    const gp_export_job *job = c->job;
    char name[GP_NAME_MAX];
    gpx_shq(name, sizeof name, job->job_name && job->job_name[0] ? job->job_name : "gpuplan-serve");
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_add(&b, "#!/bin/bash\n");
    gpx_header(&b, c, "# ", "serve.sbatch");
    gpx_add(&b, "# %d replicas, one Slurm array task each: sbatch serve.sbatch. Each task writes its\n"
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

gp_status gpx_deploy_files(const gpx_ctx *c, const gpx_cmd *cmd, const char *health, gp_export_files *out,
                           gp_error *err)
{
    char *line = malloc(8192);
    if (!line)
        return gpi_fail(err, GP_ENOMEM, "out of memory rendering deploy.json");
    gpx_cmd_line(line, 8192, cmd);
    gp_status st = k8s_file(c, line, health, out, err);
    free(line);
    if (st == GP_OK)
        st = sbatch_file(c, cmd, out, err);
    return st;
}
