/* loso.h: leave-one-source-out refits of the models' constants (loso.c). */
#ifndef GPV_LOSO_H
#define GPV_LOSO_H

#include "validate.h"

/* The constants fitted with one source held out. */
typedef struct vfit {
    const gpv_model *model;
    char source[64]; /* the held-out source */
    int train_rows;  /* rows the fit used (0: no other source; shipped values kept) */
    double v[GPV_MAX_PARAMS];
} vfit;

typedef struct vloso {
    vrows rows; /* each case predicted with the constants fitted without its source */
    vfit *fits;
    int nfits;
    int evaluations; /* predictions computed (the cost of the refits) */
} vloso;

/* The objective every fit minimises: median absolute error + 0.3 x its 90th percentile, in
 * percent (docs/performance.md, "Calibration"). */
double vfit_objective(const vrows *rs);

/* A smooth objective: the mean Huber loss of ln(predicted / measured), quadratic within
 * VFIT_HUBER_DELTA (0.2, about 20%) and linear beyond, in percent. Training's fit uses it: the
 * median-based objective is a landscape of steps on which a held-out fit's optimum was a ledge
 * away from its neighbours (docs/performance.md, "Calibration"). */
#define VFIT_HUBER_DELTA 0.2
double vfit_objective_huber(const vrows *rs);

/* Predict every case of `cases` (a JSON array) with each model, its constants refitted on
 * the cases of the other sources. 0, or 1 when out of memory. */
int vloso_run(const gp_catalog *cat, const gpv_model *const *models, int nmodels, json_t *cases, vloso *out);
void vloso_free(vloso *l);

#endif
