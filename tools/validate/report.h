/* report.h: statistics and renderings of the compared rows (report.c). */
#ifndef GPV_REPORT_H
#define GPV_REPORT_H

#include "loso.h"

#define GPV_NCATEGORIES 5
extern const char *const gpv_categories[GPV_NCATEGORIES];

/* (predicted - measured) / measured in percent; NAN for a bound check. */
double vrow_error_pct(const vrow *r);
/* The renderings of the in-sample rows, with the leave-one-source-out figures when l is not
 * NULL. JSON: {rows, summary, by_source, by_gpu, loso}; NULL when out of memory. */
void vreport_text(const vrows *rs, const vloso *l, FILE *f);
json_t *vreport_json(const vrows *rs, const vloso *l);
void vreport_markdown(const vrows *rs, const vloso *l, FILE *md, int cases_read);

#endif
