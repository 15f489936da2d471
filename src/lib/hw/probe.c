/*
 * probe.c: the GPUs of this machine through NVML, loaded at run time (dlopen), and their
 * catalog entries. NVML's few types are declared here (the subset of nvml.h we call, with
 * the same layout), so building needs no CUDA headers and running needs no driver. All
 * state lives in the gp_probe handle: the library handle, the entry points, the results.
 */
#include "internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* ---- the subset of nvml.h we use ----------------------------------------------------------- */
typedef int nvml_return;                    /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t */
typedef struct nvml_memory {                /* nvmlMemory_t (v1) */
    unsigned long long total, free, used;
} nvml_memory;
#define NVML_SUCCESS          0
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_FEATURE_ENABLED  1
#define NVML_TEXT_MAX         96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE, UUID size fit */

typedef nvml_return (*nvml_void_fn)(void);
typedef const char *(*nvml_error_string_fn)(nvml_return);
typedef nvml_return (*nvml_text_fn)(char *, unsigned int);
typedef nvml_return (*nvml_int_fn)(int *);
typedef nvml_return (*nvml_count_fn)(unsigned int *);
typedef nvml_return (*nvml_handle_fn)(unsigned int, nvml_device *);
typedef nvml_return (*nvml_dev_text_fn)(nvml_device, char *, unsigned int);
typedef nvml_return (*nvml_dev_memory_fn)(nvml_device, nvml_memory *);
typedef nvml_return (*nvml_dev_uint_fn)(nvml_device, unsigned int *);
typedef nvml_return (*nvml_dev_link_fn)(nvml_device, unsigned int, int *);

struct gp_probe {
    void *lib; /* dlopen handle */
    int initialised;
    nvml_void_fn shutdown;
    char driver[80];
    int cuda_version;
    size_t n;
    gp_probe_gpu gpus[GP_PROBE_MAX_GPUS];
};

static void *sym(void *lib, const char *name)
{
    dlerror();
    return dlsym(lib, name);
}

static const char *nvml_msg(nvml_error_string_fn es, nvml_return r)
{
    const char *s = es ? es(r) : NULL;
    return s ? s : "unknown NVML error";
}

void gp_probe_free(gp_probe *p)
{
    if (!p)
        return;
    if (p->initialised && p->shutdown)
        p->shutdown();
    if (p->lib)
        dlclose(p->lib);
    free(p);
}

/* The NVML entry points gpuplan calls; the optional ones may be NULL. */
typedef struct nvml_api {
    nvml_void_fn init;
    nvml_error_string_fn error_string;
    nvml_count_fn count;
    nvml_handle_fn handle;
    nvml_dev_text_fn name, uuid;
    nvml_dev_memory_fn memory;
    nvml_text_fn driver;
    nvml_int_fn cuda;
    nvml_dev_uint_fn pcie_gen, pcie_width, pcie_gen_max, pcie_width_max;
    nvml_dev_link_fn link_state;
} nvml_api;

/* A symbol, preferring the versioned name. */
static void *sym2(void *lib, const char *versioned, const char *plain)
{
    void *f = sym(lib, versioned);
    return f ? f : sym(lib, plain);
}

/* 1 if the library has every entry point gpuplan needs. */
static int load_api(gp_probe *p, nvml_api *a)
{
    a->init = (nvml_void_fn)sym2(p->lib, "nvmlInit_v2", "nvmlInit");
    p->shutdown = (nvml_void_fn)sym(p->lib, "nvmlShutdown");
    a->error_string = (nvml_error_string_fn)sym(p->lib, "nvmlErrorString");
    a->count = (nvml_count_fn)sym2(p->lib, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    a->handle = (nvml_handle_fn)sym2(p->lib, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    a->name = (nvml_dev_text_fn)sym(p->lib, "nvmlDeviceGetName");
    a->memory = (nvml_dev_memory_fn)sym(p->lib, "nvmlDeviceGetMemoryInfo");
    /* optional entry points: absent ones leave their fields 0 */
    a->uuid = (nvml_dev_text_fn)sym(p->lib, "nvmlDeviceGetUUID");
    a->driver = (nvml_text_fn)sym(p->lib, "nvmlSystemGetDriverVersion");
    a->cuda = (nvml_int_fn)sym2(p->lib, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
    a->pcie_gen = (nvml_dev_uint_fn)sym(p->lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    a->pcie_width = (nvml_dev_uint_fn)sym(p->lib, "nvmlDeviceGetCurrPcieLinkWidth");
    a->pcie_gen_max = (nvml_dev_uint_fn)sym(p->lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    a->pcie_width_max = (nvml_dev_uint_fn)sym(p->lib, "nvmlDeviceGetMaxPcieLinkWidth");
    a->link_state = (nvml_dev_link_fn)sym(p->lib, "nvmlDeviceGetNvLinkState");
    return a->init && p->shutdown && a->count && a->handle && a->name && a->memory;
}

static void read_text(nvml_dev_text_fn f, nvml_device d, char *dst, size_t n)
{
    char text[NVML_TEXT_MAX];
    if (f && f(d, text, sizeof text) == NVML_SUCCESS) {
        text[sizeof text - 1] = '\0';
        gpi_strlcpy(dst, text, n);
    }
}

/* What NVML says about one device (fields it cannot read stay 0). */
static void read_device(const nvml_api *a, nvml_device d, gp_probe_gpu *g)
{
    read_text(a->name, d, g->name, sizeof g->name);
    read_text(a->uuid, d, g->uuid, sizeof g->uuid);
    nvml_memory mem = {0, 0, 0};
    if (a->memory(d, &mem) == NVML_SUCCESS) {
        g->memory_total_bytes = mem.total;
        g->memory_free_bytes = mem.free;
    }
    unsigned int v;
    if (a->pcie_gen && a->pcie_gen(d, &v) == NVML_SUCCESS && v < 100)
        g->pcie_gen = (int)v;
    if (a->pcie_width && a->pcie_width(d, &v) == NVML_SUCCESS && v < 1000)
        g->pcie_width = (int)v;
    if (a->pcie_gen_max && a->pcie_gen_max(d, &v) == NVML_SUCCESS && v < 100)
        g->pcie_gen_max = (int)v;
    if (a->pcie_width_max && a->pcie_width_max(d, &v) == NVML_SUCCESS && v < 1000)
        g->pcie_width_max = (int)v;
    for (unsigned int l = 0; a->link_state && l < NVML_NVLINK_MAX_LINKS; l++) {
        int state = 0;
        if (a->link_state(d, l, &state) != NVML_SUCCESS)
            break; /* past the last link, or no NVLink */
        if (state == NVML_FEATURE_ENABLED)
            g->nvlink_active++;
    }
}

/* Start NVML, read the driver and every device (up to GP_PROBE_MAX_GPUS). */
static gp_status read_devices(gp_probe *p, const nvml_api *a, gp_error *err)
{
    nvml_return r = a->init();
    if (r != NVML_SUCCESS)
        return gpi_fail(err, GP_EIO, "NVML failed to start: %s (is the NVIDIA driver loaded?)",
                        nvml_msg(a->error_string, r));
    p->initialised = 1;
    char text[NVML_TEXT_MAX];
    if (a->driver && a->driver(text, sizeof text) == NVML_SUCCESS) {
        text[sizeof text - 1] = '\0';
        gpi_strlcpy(p->driver, text, sizeof p->driver);
    }
    int cuda = 0;
    if (a->cuda && a->cuda(&cuda) == NVML_SUCCESS && cuda > 0)
        p->cuda_version = cuda;
    unsigned int n = 0;
    if ((r = a->count(&n)) != NVML_SUCCESS)
        return gpi_fail(err, GP_EIO, "NVML could not count the GPUs: %s", nvml_msg(a->error_string, r));
    if (n > GP_PROBE_MAX_GPUS)
        n = GP_PROBE_MAX_GPUS;
    for (unsigned int i = 0; i < n; i++) {
        nvml_device d = NULL;
        if ((r = a->handle(i, &d)) != NVML_SUCCESS)
            return gpi_fail(err, GP_EIO, "NVML could not open GPU %u: %s", i, nvml_msg(a->error_string, r));
        gp_probe_gpu *g = &p->gpus[p->n];
        memset(g, 0, sizeof *g);
        g->index = (int)i;
        read_device(a, d, g);
        p->n++;
    }
    return GP_OK;
}

gp_status gp_probe_open(const char *nvml_path, gp_probe **out, gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    const char *path = nvml_path && *nvml_path ? nvml_path : GP_PROBE_DEFAULT_NVML;
    gp_probe *p = calloc(1, sizeof *p);
    if (!p)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    p->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->lib) {
        const char *why = dlerror();
        gpi_fail(err, GP_ENOTFOUND, "NVML not found (%s): no NVIDIA driver on this machine (%s)", path,
                 why ? why : "dlopen failed");
        gpi_error_set_path(err, path);
        gp_probe_free(p);
        return GP_ENOTFOUND;
    }
    nvml_api api;
    if (!load_api(p, &api)) {
        gpi_fail(err, GP_EUNSUPPORTED,
                 "%s lacks NVML entry points gpuplan needs (nvmlInit, nvmlDeviceGetCount, "
                 "nvmlDeviceGetHandleByIndex, nvmlDeviceGetName, nvmlDeviceGetMemoryInfo)",
                 path);
        gpi_error_set_path(err, path);
        gp_probe_free(p);
        return GP_EUNSUPPORTED;
    }
    gp_status st = read_devices(p, &api, err);
    if (st) {
        gp_probe_free(p);
        return st;
    }
    *out = p;
    return GP_OK;
}

size_t gp_probe_gpu_count(const gp_probe *p)
{
    return p ? p->n : 0;
}

const gp_probe_gpu *gp_probe_gpu_at(const gp_probe *p, size_t i)
{
    return p && i < p->n ? &p->gpus[i] : NULL;
}

const char *gp_probe_driver_version(const gp_probe *p)
{
    return p ? p->driver : "";
}

int gp_probe_cuda_version(const gp_probe *p)
{
    return p ? p->cuda_version : 0;
}

/* ---- device name -> catalog entry ------------------------------------------------------- */
enum { FORM_SXM, FORM_PCIE, FORM_NVL };
#define MAX_WORDS 24

/* Split s into upper-case alphanumeric words. */
static int words_of(const char *s, char w[][32], int max)
{
    int n = 0;
    while (*s && n < max) {
        while (*s && !isalnum((unsigned char)*s))
            s++;
        if (!*s)
            break;
        size_t k = 0;
        while (*s && isalnum((unsigned char)*s)) {
            if (k + 1 < 32)
                w[n][k++] = (char)toupper((unsigned char)*s);
            s++;
        }
        w[n][k] = '\0';
        n++;
    }
    return n;
}

static int is_memory_word(const char *w)
{
    size_t n = strlen(w);
    if (n < 3 || strcmp(w + n - 2, "GB") != 0)
        return 0;
    for (size_t i = 0; i + 2 < n; i++)
        if (!isdigit((unsigned char)w[i]))
            return 0;
    return 1;
}

static int form_word(const char *w)
{
    if (!strncmp(w, "PCIE", 4))
        return FORM_PCIE;
    if (!strcmp(w, "NVL"))
        return FORM_NVL;
    if (!strncmp(w, "SXM", 3))
        return FORM_SXM;
    return -1;
}

gp_status gp_probe_match(const gp_catalog *cat, const gp_probe_gpu *dev, const gp_gpu **out, gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    char dw[MAX_WORDS][32], cw[MAX_WORDS][32];
    int nd = words_of(dev->name, dw, MAX_WORDS);
    int dev_form = FORM_SXM;
    for (int i = 0; i < nd; i++) {
        int f = form_word(dw[i]);
        if (f == FORM_PCIE || f == FORM_NVL)
            dev_form = f;
    }
    const gp_gpu *best = NULL;
    int best_score = 0;
    double best_gap = 0;
    for (size_t k = 0; k < gp_catalog_gpu_count(cat); k++) {
        const gp_gpu *g = gp_catalog_gpu_at(cat, k);
        int nc = words_of(g->id, cw, MAX_WORDS), model_words = 0, all = 1, form = FORM_SXM;
        for (int i = 0; i < nc && all; i++) {
            int f = form_word(cw[i]);
            if (f >= 0) {
                form = f;
                continue;
            }
            if (is_memory_word(cw[i]))
                continue;
            int found = 0;
            for (int j = 0; j < nd && !found; j++)
                found = !strcmp(cw[i], dw[j]);
            all = found;
            model_words++;
        }
        if (!all || model_words == 0)
            continue;
        int score = 100 * model_words + (form == dev_form ? 10 : 0);
        double gap = dev->memory_total_bytes > 0 ? (double)g->memory_bytes - (double)dev->memory_total_bytes : 0;
        if (gap < 0)
            gap = -gap;
        if (!best || score > best_score || (score == best_score && gap < best_gap)) {
            best = g;
            best_score = score;
            best_gap = gap;
        }
    }
    if (!best)
        return gpi_fail(err, GP_ENOTFOUND,
                        "GPU %d '%s' matches no catalog entry (see 'gpuplan gpus'; add it with "
                        "--data-dir)",
                        dev->index, dev->name);
    *out = best;
    return GP_OK;
}
