/* validate_serve.c: infer_throughput cases (filled in with the serving model). */
#include "validate.h"

void validate_infer_throughput(gp_catalog *cat, json_t *c, vrows *rs)
{
    (void)cat, (void)c, (void)rs;
}
