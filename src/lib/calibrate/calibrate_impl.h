/*
 * calibrate_impl.h: what the calibration fit shares (predict.c, fit.c). Private.
 */
#ifndef GPI_CALIBRATE_IMPL_H
#define GPI_CALIBRATE_IMPL_H

#include "internal.h"
#include "runs_impl.h"

/* One measured run, mapped to the library's inputs once. */
typedef struct gpi_cal_case {
    const gpi_measured_run *run;
    const gp_catalog *cat; /* its measured rates (data/kernels.json), as the commands use them */
    int use;               /* GP_CAL_TRAIN / GP_CAL_SERVE */
    gp_model m;
    gp_gpu gpu; /* the catalog row, uncalibrated */
    gp_workload w;
    gp_layout l;
    gp_cluster cluster;     /* training */
    gpi_sched_config sched; /* serving */
    gp_traffic t;
    gp_dtype dtype; /* the calibration key's precision */
    int engine;
    const char *quantity; /* the measured figure compared */
    double measured, before, after;
    int group;
} gpi_cal_case;

gp_status gpi_cal_case_init(const gp_catalog *cat, const gpi_measured_run *r, gpi_cal_case *cc, gp_error *err);
/* The case's figure predicted with the trial values theta[GP_CALP_COUNT]; NaN if the model
   cannot evaluate it. */
double gpi_cal_case_predict(const gpi_cal_case *cc, const double *theta);
/* theta of an uncalibrated prediction: scales 1, overhead -1 (the engine's). */
void gpi_cal_theta_identity(double *theta);

#endif
