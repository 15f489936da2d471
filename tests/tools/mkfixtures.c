/*
 * mkfixtures: writes the weight-file fixtures the CLI tests read, as sparse files (headers
 * only; the data regions are holes, so they take no disk):
 *   DIR/llama-3.1-70b/            config.json (copied from CONFIG), model.safetensors.index.json,
 *                                 three BF16 shards with Llama-3.1-70B's real tensor shapes
 *   DIR/llama-3.1-70b-Q4_K.gguf   a GGUF v3 header of the same model as llama.cpp names it:
 *                                 2-D weights Q4_K, norms F32, plus the rope_freqs buffer
 * usage: mkfixtures CONFIG DIR
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { L = 80, H = 8192, KV = 1024, F = 28672, V = 128256 };

typedef struct {
    const char *fmt;
    int64_t d0, d1;
} tensor; /* d1 = 0: 1-D */

static int ntensors(void)
{
    return 2 + 1 + L * 9;
}

/* i-th tensor of the model: name (HF naming), shape */
static void tensor_at(int i, char *name, size_t n, int64_t *d0, int64_t *d1)
{
    if (i == 0) {
        snprintf(name, n, "model.embed_tokens.weight");
        *d0 = V;
        *d1 = H;
        return;
    }
    if (i == 1) {
        snprintf(name, n, "model.norm.weight");
        *d0 = H;
        *d1 = 0;
        return;
    }
    if (i == 2) {
        snprintf(name, n, "lm_head.weight");
        *d0 = V;
        *d1 = H;
        return;
    }
    int l = (i - 3) / 9, k = (i - 3) % 9;
    static const struct {
        const char *s;
        int64_t a, b;
    } parts[9] = {{"self_attn.q_proj.weight", H, H},        {"self_attn.k_proj.weight", KV, H},
                  {"self_attn.v_proj.weight", KV, H},       {"self_attn.o_proj.weight", H, H},
                  {"mlp.gate_proj.weight", F, H},           {"mlp.up_proj.weight", F, H},
                  {"mlp.down_proj.weight", H, F},           {"input_layernorm.weight", H, 0},
                  {"post_attention_layernorm.weight", H, 0}};
    snprintf(name, n, "model.layers.%d.%s", l, parts[k].s);
    *d0 = parts[k].a;
    *d1 = parts[k].b;
}

static int write_shard(const char *path, int first, int last)
{
    size_t cap = 1 << 20, len = 0;
    char *json = malloc(cap);
    if (!json)
        return -1;
    uint64_t off = 0;
    len += (size_t)snprintf(json + len, cap - len, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (int i = first; i < last; i++) {
        char name[128];
        int64_t d0, d1;
        tensor_at(i, name, sizeof name, &d0, &d1);
        uint64_t bytes = (uint64_t)d0 * (uint64_t)(d1 ? d1 : 1) * 2u;
        if (d1)
            len += (size_t)snprintf(json + len, cap - len,
                                    ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%lld,%lld],\"data_offsets\":[%llu,%llu]}",
                                    name, (long long)d0, (long long)d1, (unsigned long long)off,
                                    (unsigned long long)(off + bytes));
        else
            len += (size_t)snprintf(json + len, cap - len,
                                    ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%lld],\"data_offsets\":[%llu,%llu]}", name,
                                    (long long)d0, (unsigned long long)off, (unsigned long long)(off + bytes));
        off += bytes;
    }
    len += (size_t)snprintf(json + len, cap - len, "}");
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(json);
        return -1;
    }
    uint8_t hdr[8];
    for (int i = 0; i < 8; i++)
        hdr[i] = (uint8_t)((uint64_t)len >> (8 * i));
    fwrite(hdr, 1, 8, f);
    fwrite(json, 1, len, f);
    fclose(f);
    free(json);
    return truncate(path, (off_t)(8 + len + off));
}

/* ---- GGUF v3 ---- */
static void w32(FILE *f, uint32_t v)
{
    fwrite(&v, 4, 1, f);
}
static void w64(FILE *f, uint64_t v)
{
    fwrite(&v, 8, 1, f);
}
static void wstr(FILE *f, const char *s)
{
    w64(f, strlen(s));
    fwrite(s, 1, strlen(s), f);
}
static void kv_u32(FILE *f, const char *k, uint32_t v)
{
    wstr(f, k);
    w32(f, 4);
    w32(f, v);
}
static void kv_str(FILE *f, const char *k, const char *v)
{
    wstr(f, k);
    w32(f, 8);
    wstr(f, v);
}

static int write_gguf(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fwrite("GGUF", 1, 4, f);
    w32(f, 3);
    w64(f, (uint64_t)ntensors() + 1); /* + rope_freqs */
    w64(f, 10);
    kv_str(f, "general.architecture", "llama");
    kv_str(f, "general.name", "Llama 3.1 70B");
    kv_u32(f, "llama.block_count", L);
    kv_u32(f, "llama.embedding_length", H);
    kv_u32(f, "llama.feed_forward_length", F);
    kv_u32(f, "llama.attention.head_count", 64);
    kv_u32(f, "llama.attention.head_count_kv", 8);
    kv_u32(f, "llama.context_length", 131072);
    kv_u32(f, "llama.vocab_size", V);
    kv_u32(f, "general.alignment", 32);
    uint64_t off = 0;
    for (int i = 0; i <= ntensors(); i++) {
        char name[128], gname[128];
        int64_t d0, d1;
        uint32_t type;
        uint64_t bytes;
        if (i == ntensors()) {
            snprintf(gname, sizeof gname, "rope_freqs.weight");
            d0 = 64;
            d1 = 0;
        } else {
            tensor_at(i, name, sizeof name, &d0, &d1);
            int l;
            char part[64];
            if (i == 0)
                snprintf(gname, sizeof gname, "token_embd.weight");
            else if (i == 1)
                snprintf(gname, sizeof gname, "output_norm.weight");
            else if (i == 2)
                snprintf(gname, sizeof gname, "output.weight");
            else if (sscanf(name, "model.layers.%d.%63s", &l, part) == 2) {
                static const struct {
                    const char *hf, *gg;
                } map[] = {{"self_attn.q_proj.weight", "attn_q"},          {"self_attn.k_proj.weight", "attn_k"},
                           {"self_attn.v_proj.weight", "attn_v"},          {"self_attn.o_proj.weight", "attn_output"},
                           {"mlp.gate_proj.weight", "ffn_gate"},           {"mlp.up_proj.weight", "ffn_up"},
                           {"mlp.down_proj.weight", "ffn_down"},           {"input_layernorm.weight", "attn_norm"},
                           {"post_attention_layernorm.weight", "ffn_norm"}};
                const char *g = "?";
                for (size_t k = 0; k < 9; k++)
                    if (strcmp(part, map[k].hf) == 0)
                        g = map[k].gg;
                snprintf(gname, sizeof gname, "blk.%d.%s.weight", l, g);
            }
        }
        wstr(f, gname);
        if (d1) { /* GGUF dims are innermost first */
            w32(f, 2);
            w64(f, (uint64_t)d1);
            w64(f, (uint64_t)d0);
            type = 12; /* Q4_K: 144 bytes per 256 elements */
            bytes = (uint64_t)d0 * (uint64_t)d1 / 256u * 144u;
        } else {
            w32(f, 1);
            w64(f, (uint64_t)d0);
            type = 0; /* F32 */
            bytes = (uint64_t)d0 * 4u;
        }
        w32(f, type);
        w64(f, off);
        off += (bytes + 31) / 32 * 32;
    }
    long pos = ftell(f);
    long data = (pos + 31) / 32 * 32;
    fclose(f);
    return truncate(path, (off_t)(data + (long)off));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mkfixtures CONFIG DIR\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/llama-3.1-70b", argv[2]);
    mkdir(argv[2], 0755);
    mkdir(path, 0755);
    /* config.json */
    FILE *in = fopen(argv[1], "rb");
    snprintf(path, sizeof path, "%s/llama-3.1-70b/config.json", argv[2]);
    FILE *out = fopen(path, "wb");
    if (!in || !out) {
        fprintf(stderr, "mkfixtures: cannot copy %s\n", argv[1]);
        return 1;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
    /* three shards + index */
    int cut[4] = {0, 250, 500, ntensors()};
    snprintf(path, sizeof path, "%s/llama-3.1-70b/model.safetensors.index.json", argv[2]);
    FILE *idx = fopen(path, "wb");
    if (!idx)
        return 1;
    fprintf(idx, "{\"metadata\":{\"total_size\":141107412992},\"weight_map\":{");
    for (int s = 0; s < 3; s++) {
        char shard[4096];
        snprintf(shard, sizeof shard, "%s/llama-3.1-70b/model-%05d-of-00003.safetensors", argv[2], s + 1);
        if (write_shard(shard, cut[s], cut[s + 1]) != 0) {
            fprintf(stderr, "mkfixtures: cannot write %s\n", shard);
            return 1;
        }
        for (int i = cut[s]; i < cut[s + 1]; i++) {
            char name[128];
            int64_t d0, d1;
            tensor_at(i, name, sizeof name, &d0, &d1);
            fprintf(idx, "%s\"%s\":\"model-%05d-of-00003.safetensors\"", i ? "," : "", name, s + 1);
        }
    }
    fprintf(idx, "}}\n");
    fclose(idx);
    snprintf(path, sizeof path, "%s/llama-3.1-70b-Q4_K.gguf", argv[2]);
    if (write_gguf(path) != 0) {
        fprintf(stderr, "mkfixtures: cannot write %s\n", path);
        return 1;
    }
    return 0;
}
