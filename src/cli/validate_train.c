/* validate_train.c: train_throughput cases (filled in with the training performance model). */
#include "validate.h"

void validate_train_throughput(gp_catalog *cat, json_t *c, vrows *rs)
{
    (void)cat, (void)c, (void)rs;
}
