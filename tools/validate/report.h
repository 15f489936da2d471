/* report.h: statistics and renderings of the compared rows (report.c). */
#ifndef GPV_REPORT_H
#define GPV_REPORT_H

#include "validate.h"

#define GPV_NCATEGORIES 5
extern const char *const gpv_categories[GPV_NCATEGORIES];

/* (predicted - measured) / measured in percent; NAN for a bound check. */
double vrow_error_pct(const vrow *r);
void vreport_text(const vrows *rs, FILE *f);
json_t *vreport_json(const vrows *rs); /* {"rows": [...], "summary": [...]}; NULL when out of memory */
void vreport_markdown(const vrows *rs, FILE *md, int cases_read);

#endif
