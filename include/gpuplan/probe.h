/*
 * gpuplan/probe.h: the GPUs of this machine, read through NVML (included by gpuplan.h; not a
 * header of its own).
 *
 * NVML (libnvidia-ml.so.1, shipped with the NVIDIA driver) is loaded at run time with dlopen,
 * so gpuplan builds and runs where it is absent: gp_probe_open then fails with GP_ENOTFOUND
 * and a message saying so. Everything is read once, at open; the handle owns the library
 * and the results and is released by gp_probe_free. No global state: two handles are two
 * independent loads. Tests point `nvml_path` at a fake library exporting the same symbols.
 */
#ifndef GPUPLAN_PROBE_H
#define GPUPLAN_PROBE_H

#define GP_PROBE_MAX_GPUS     64 /* devices read from one machine (more are ignored) */
#define GP_PROBE_DEFAULT_NVML "libnvidia-ml.so.1"

/* One local device as NVML reports it. Fields NVML cannot tell are 0 / empty. */
typedef struct gp_probe_gpu {
    int index;     /* NVML device index */
    char name[96]; /* "NVIDIA H100 80GB HBM3" */
    char uuid[96]; /* "GPU-..." */
    uint64_t memory_total_bytes;
    uint64_t memory_free_bytes;
    int pcie_gen;     /* current PCIe link generation (idle links may train down) */
    int pcie_width;   /* current PCIe link width (lanes) */
    int pcie_gen_max; /* what the link can do */
    int pcie_width_max;
    int nvlink_active; /* NVLink links in the enabled state (0: none or no NVLink) */
} gp_probe_gpu;

typedef struct gp_probe gp_probe;

/* Load NVML from `nvml_path` (NULL: GP_PROBE_DEFAULT_NVML, found by the dynamic loader),
 * initialise it and read every device. GP_ENOTFOUND when the library is absent (no NVIDIA
 * driver), GP_EUNSUPPORTED when it lacks a needed symbol, GP_EIO when NVML fails. */
GP_API gp_status gp_probe_open(const char *nvml_path, gp_probe **out, gp_error *err);
/* Shut NVML down and free the handle (NULL: no-op). */
GP_API void gp_probe_free(gp_probe *p);

/* What was read at gp_probe_open (the handle is read-only afterwards: readers may share it).
 * Devices read; 0 for NULL. */
GP_API size_t gp_probe_gpu_count(const gp_probe *p);
/* Borrowed pointer valid until gp_probe_free; NULL past the end. */
GP_API const gp_probe_gpu *gp_probe_gpu_at(const gp_probe *p, size_t i);
/* "550.54.15"; "" if NVML did not say (or p is NULL). Borrowed from the handle. */
GP_API const char *gp_probe_driver_version(const gp_probe *p);
/* CUDA version the driver supports, as NVML encodes it (12040 = 12.4); 0 if unknown (or p is NULL). */
GP_API int gp_probe_cuda_version(const gp_probe *p);

/* The catalog entry a local device is: the catalog GPU whose model (H100, A100, L40S,
 * RTX-4090, ...) the device name names as a word, preferring the form factor the name says
 * (PCIe, NVL, else SXM) and then the nearest memory size. GP_ENOTFOUND with a message
 * naming the device when no catalog entry matches. *out is borrowed from the catalog. */
GP_API gp_status gp_probe_match(const gp_catalog *cat, const gp_probe_gpu *dev, const gp_gpu **out, gp_error *err);

/* The probe as the document `gpuplan probe --json` prints and as its text, each device with
 * its catalog entry (gp_probe_match). p NULL: NVML could not be loaded, and `why` says why
 * (gp_probe_open's message); nvml_path: the library asked for (NULL: GP_PROBE_DEFAULT_NVML).
 * malloc'd into *text, free with gp_text_free (gpuplan/run.h). */
GP_API gp_status gp_probe_json(const gp_catalog *cat, const gp_probe *p, const char *nvml_path, const char *why,
                               char **text, size_t *len, gp_error *err);
GP_API gp_status gp_probe_text(const gp_catalog *cat, const gp_probe *p, const char *why, char **text, size_t *len,
                               gp_error *err);

#endif
