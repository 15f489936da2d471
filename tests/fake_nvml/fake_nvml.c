/*
 * fake_nvml.c: a stand-in for libnvidia-ml.so.1 exporting the NVML symbols gpuplan's probe
 * calls, so the probe is tested where no NVIDIA driver exists. It describes an 8 x H100 SXM
 * node (NVLink 4: 18 links) unless the environment says otherwise:
 *   FAKE_NVML_COUNT=N        devices (default 8; 0 allowed)
 *   FAKE_NVML_NAME=S         the name of every device (default "NVIDIA H100 80GB HBM3")
 *   FAKE_NVML_MEMORY_MIB=N   memory per device (default 81559)
 *   FAKE_NVML_NVLINKS=N      active NVLink links (default 18; the rest report "not supported")
 *   FAKE_NVML_INIT_FAIL=1    nvmlInit fails (driver/library mismatch)
 * Holds no state: each call reads the environment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_INSUFFICIENT_SIZE = 7
};

#define EXPORT __attribute__((visibility("default")))

EXPORT nvmlReturn_t nvmlInit_v2(void);
EXPORT nvmlReturn_t nvmlShutdown(void);
EXPORT const char *nvmlErrorString(nvmlReturn_t r);
EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v);
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n);
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length);
EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int length);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m);
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *v);
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *v);
EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int *v);
EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int *v);
EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int *active);

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 10) : dflt;
}

/* Device handles are index + 1 cast to a pointer: never dereferenced. */
static long dev_index(nvmlDevice_t d)
{
    long i = (long)(size_t)d - 1;
    return i >= 0 && i < env_long("FAKE_NVML_COUNT", 8) ? i : -1;
}

static nvmlReturn_t copy(char *dst, unsigned int n, const char *src)
{
    if (!dst || strlen(src) + 1 > n)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(dst, src, strlen(src) + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void)
{
    return env_long("FAKE_NVML_INIT_FAIL", 0) ? NVML_ERROR_DRIVER_NOT_LOADED : NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
    return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    return copy(version, length, "550.54.15");
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
    *v = 12040;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
    long c = env_long("FAKE_NVML_COUNT", 8);
    *n = c > 0 ? (unsigned int)c : 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    if ((long)i >= env_long("FAKE_NVML_COUNT", 8))
        return NVML_ERROR_INVALID_ARGUMENT;
    *d = (nvmlDevice_t)(size_t)(i + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length)
{
    const char *s = getenv("FAKE_NVML_NAME");
    if (dev_index(d) < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    return copy(name, length, s && *s ? s : "NVIDIA H100 80GB HBM3");
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int length)
{
    char buf[80];
    long i = dev_index(d);
    if (i < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    snprintf(buf, sizeof buf, "GPU-fa4e0000-0000-0000-0000-%012ld", i);
    return copy(uuid, length, buf);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    long i = dev_index(d);
    if (i < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned long long total = (unsigned long long)env_long("FAKE_NVML_MEMORY_MIB", 81559) << 20;
    m->total = total;
    m->used = (unsigned long long)(i + 1) << 30; /* 1 GiB more used on each device */
    m->free = total - m->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *v)
{
    *v = 5;
    return dev_index(d) < 0 ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *v)
{
    *v = 16;
    return dev_index(d) < 0 ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int *v)
{
    *v = 5;
    return dev_index(d) < 0 ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int *v)
{
    *v = 16;
    return dev_index(d) < 0 ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int *active)
{
    if (dev_index(d) < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    if ((long)link >= env_long("FAKE_NVML_NVLINKS", 18))
        return NVML_ERROR_NOT_SUPPORTED;
    *active = 1;
    return NVML_SUCCESS;
}
