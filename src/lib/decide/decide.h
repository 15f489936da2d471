/*
 * decide.h: steps of the plan shared inside src/lib/decide/ (library-internal).
 */
#ifndef GPI_DECIDE_H
#define GPI_DECIDE_H

#include "internal.h"

/* The decision around a ranked plan (board.c): the best alternative of each kind, the
 * runner-up, the risks sized with the file's what-ifs, and what each data rule costs.
 * Needs out->options ranked and out->recommended set. */
void gpi_plan_decide(const gpi_prices *prices, gp_plan_result *out);

#endif
