/* A program outside the tree, built against the installed library through pkg-config
 * (tools/test.sh): the public header alone is enough to ask for a model's parameters. */
#include <gpuplan.h>
#include <stdio.h>

int main(void)
{
    gp_catalog *cat;
    gp_error err;
    if (gp_catalog_open(NULL, &cat, &err) != GP_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    gp_model m;
    int rc = gp_catalog_find_model(cat, "llama-3.1-70b", &m, &err) != GP_OK;
    if (!rc)
        printf("%lld\n", (long long)gp_model_total_params(&m));
    gp_catalog_free(cat);
    /* the published count, tests/data/README.md */
    return rc || gp_model_total_params(&m) != 70553706496LL;
}
