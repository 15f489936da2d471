/*
 * private/scenario.h: a scenario's pieces for the run functions.
 * Declarations libgpuplan's modules share; never installed, not part of the API (the
 * functions are hidden in libgpuplan.so). docs/architecture.md, "Public and private".
 */
#ifndef GPI_PRIVATE_SCENARIO_H
#define GPI_PRIVATE_SCENARIO_H

#include "gpuplan.h"
#include "private/base.h"

/* ---- from include/gpuplan/scenario.h ---- */
/* The valid key nearest to `name` for the command(s) (a shortened or misspelt key): NULL if
 * none is near. */
const gp_scenario_key *gpi_scenario_key_nearest(const char *name, unsigned commands);

/* ---- from include/gpuplan/run.h ---- */
/* The workload (defaults for sc->task, then the keys given) and the fixed layout dimensions
 * (0: not given). */
gp_status gpi_scenario_workload(const gp_scenario *sc, gp_workload *w, gp_error *err);

void gpi_scenario_layout(const gp_scenario *sc, gp_layout *given);

#endif /* GPI_PRIVATE_SCENARIO_H */
