/*
 * test_compliance.c: data-sensitivity profiles (src/lib/decide/compliance.c, data/
 * compliance.json) and the reliability arithmetic (src/lib/decide/reliability.c), with the
 * expected values worked out in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "internal.h"

static gp_catalog *cat;

static int setup(void **state)
{
    (void)state;
    gp_error err;
    return gp_catalog_open(NULL, &cat, &err) == GP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(cat);
    return 0;
}

static gp_deployment dep(const char *country, int shared)
{
    gp_deployment d;
    memset(&d, 0, sizeof d);
    snprintf(d.id, sizeof d.id, "%s-%s", country, shared ? "shared" : "dedicated");
    snprintf(d.country, sizeof d.country, "%s", country);
    d.shared = shared;
    d.audit_logging = 1;
    return d;
}

static int violates(const gp_profile *p, const gp_compliance_verdict *v, const char *rule)
{
    for (int i = 0; i < v->n_violated; i++)
        if (!strcmp(p->rules[v->violated[i]].id, rule))
            return 1;
    return 0;
}

static void test_health(void **state)
{
    (void)state;
    gp_profile p;
    gp_error err;
    assert_int_equal(gpi_compliance_profile(cat, "HEALTH", &p, &err), GP_OK);
    assert_string_equal(p.jurisdiction, "BR");
    /* six rules: in_country, dedicated, min_weight_bits 8, redundancy 1, datacenter_gpu,
     * audit_logging */
    assert_int_equal(p.n_rules, 6);
    assert_int_equal(gpi_compliance_redundancy(&p), 1);
    for (int i = 0; i < p.n_rules; i++) {
        assert_true(strlen(p.rules[i].citation) > 10); /* every rule cites its norm */
        assert_true(strlen(p.rules[i].text_pt) > 10);
    }
    assert_non_null(strstr(p.rules[0].citation, "13.709/2018"));
    assert_true(strlen(p.disclaimer_en) > 0);

    gp_compliance_verdict v;
    /* shared public cloud in the US: out of the country and not dedicated */
    gp_deployment us = dep("US", 1);
    gpi_compliance_subject s = {&us, GP_DTYPE_BF16, 1, 0};
    gpi_compliance_check(&p, &s, &v);
    assert_false(v.allowed);
    assert_int_equal(v.n_violated, 2);
    assert_true(violates(&p, &v, "health.in_country"));
    assert_true(violates(&p, &v, "health.dedicated"));
    /* shared cloud in Brazil: only dedicated */
    gp_deployment brs = dep("BR", 1);
    s.deployment = &brs;
    gpi_compliance_check(&p, &s, &v);
    assert_int_equal(v.n_violated, 1);
    assert_true(violates(&p, &v, "health.dedicated"));
    /* dedicated in Brazil, bf16, one spare: allowed, with the audit-log obligation */
    gp_deployment brd = dep("BR", 0);
    s.deployment = &brd;
    gpi_compliance_check(&p, &s, &v);
    assert_true(v.allowed);
    assert_int_equal(v.n_obligations, 1);
    assert_string_equal(p.rules[v.obligations[0]].id, "health.audit_logging");
    /* fp8 is 8 bits: allowed; int4 (4.16 bits with scales) and nf4 are below 8: excluded */
    s.weight_dtype = GP_DTYPE_FP8;
    gpi_compliance_check(&p, &s, &v);
    assert_true(v.allowed);
    s.weight_dtype = GP_DTYPE_INT4;
    gpi_compliance_check(&p, &s, &v);
    assert_true(violates(&p, &v, "health.min_precision"));
    s.weight_dtype = GP_DTYPE_NF4;
    gpi_compliance_check(&p, &s, &v);
    assert_true(violates(&p, &v, "health.min_precision"));
    /* no spare replica breaks n+1; training (-1) is not checked */
    s.weight_dtype = GP_DTYPE_BF16;
    s.spare_replicas = 0;
    gpi_compliance_check(&p, &s, &v);
    assert_true(violates(&p, &v, "health.redundancy"));
    s.spare_replicas = -1;
    gpi_compliance_check(&p, &s, &v);
    assert_true(v.allowed);
    /* a deployment without audit logs breaks the audit rule */
    brd.audit_logging = 0;
    gpi_compliance_check(&p, &s, &v);
    assert_true(violates(&p, &v, "health.audit_logging"));
}

static void test_other_profiles(void **state)
{
    (void)state;
    gp_profile p;
    gp_error err;
    gp_compliance_verdict v;
    /* finance (CMN 4,893/2021): in-country, but shared cloud allowed */
    assert_int_equal(gpi_compliance_profile(cat, "finance", &p, &err), GP_OK);
    assert_non_null(strstr(p.rules[0].citation, "4,893/2021"));
    gp_deployment brs = dep("BR", 1), us = dep("US", 0);
    gpi_compliance_subject s = {&brs, GP_DTYPE_INT4, 1, 0};
    gpi_compliance_check(&p, &s, &v);
    assert_true(v.allowed);
    s.deployment = &us;
    gpi_compliance_check(&p, &s, &v);
    assert_true(violates(&p, &v, "finance.in_country"));
    /* public sector: in-country and dedicated */
    assert_int_equal(gpi_compliance_profile(cat, "public-sector", &p, &err), GP_OK);
    s.deployment = &brs;
    gpi_compliance_check(&p, &s, &v);
    assert_true(violates(&p, &v, "public-sector.dedicated"));
    /* public sector states its redundancy: n+1 (it had none), and why */
    assert_int_equal(gpi_compliance_redundancy(&p), 1);
    assert_true(strlen(p.redundancy_why_en) > 0 && strlen(p.redundancy_why_pt) > 0);
    /* regulated profiles keep consumer cards out (GeForce licence 2.1.3), with the citation */
    const char *regulated[] = {"health", "finance", "public-sector"};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(gpi_compliance_profile(cat, regulated[k], &p, &err), GP_OK);
        gpi_compliance_subject c = {&brs, GP_DTYPE_BF16, 1, 1};
        gp_deployment ded = dep("BR", 0);
        c.deployment = &ded;
        gpi_compliance_check(&p, &c, &v);
        char id[64];
        snprintf(id, sizeof id, "%s.datacenter_gpu", regulated[k]);
        assert_true(violates(&p, &v, id));
        c.consumer_gpu = 0;
        gpi_compliance_check(&p, &c, &v);
        assert_false(violates(&p, &v, id));
    }
    assert_string_equal(gpi_rule_kind_name(GP_RULE_DATACENTER_GPU), "datacenter_gpu");
    /* none: everything allowed */
    assert_int_equal(gpi_compliance_profile(cat, "none", &p, &err), GP_OK);
    assert_int_equal(p.n_rules, 0);
    gpi_compliance_check(&p, &s, &v);
    assert_true(v.allowed);
    /* unknown: an error naming the field and the known profiles */
    assert_int_equal(gpi_compliance_profile(cat, "hipaa", &p, &err), GP_ENOTFOUND);
    assert_string_equal(err.field, "compliance");
    assert_non_null(strstr(err.msg, "health"));
}

static void test_train_reliability(void **state)
{
    (void)state;
    gp_reliability_params rp;
    gpi_reliability_defaults(&rp);
    /* the default rate: Llama 3's 419 interruptions / (16,384 GPUs x 54 d x 24 h) =
     * 419 / 21,233,664 = 1.9733e-5 per GPU-hour */
    assert_float_equal(rp.gpu_failures_per_hour, 1.9733e-5, 1e-9);
    /* one GPU failing 0.36 times an hour: M = 3600 / 0.36 = 10,000 s. A 50 GB checkpoint at
     * 1 GB/s: delta = 50 s. Daly: x = 50 / 20,000 = 0.0025, sqrt(x) = 0.05;
     * tau = sqrt(2 x 50 x 10,000) (1 + 0.05/3 + 0.0025/9) - 50 = 1000 x 1.0169444 - 50 = 966.944 s.
     * With no restart time, T_w / T_s = M (e^((tau+delta)/M) - 1) / tau
     * = 10,000 (e^0.1016944 - 1) / 966.944 = 10,000 x 0.1070453 / 966.944 = 1.107046 */
    rp.gpu_failures_per_hour = 0.36;
    rp.checkpoint_write_bytes_per_s_per_gpu = 1e9;
    rp.restart_s = 0;
    gp_train_reliability r;
    gp_error err;
    assert_int_equal(gpi_train_reliability_estimate(&rp, 1, 100000, 50e9, &r, &err), GP_OK);
    assert_float_equal(r.job_mtbf_s, 10000, 1e-6);
    assert_float_equal(r.checkpoint_s, 50, 1e-9);
    assert_float_equal(r.checkpoint_interval_s, 966.944, 1e-3);
    assert_float_equal(r.overhead_fraction, 0.107046, 1e-5);
    /* expected interruptions = T_w / M = 110,704.6 / 10,000 = 11.07 */
    assert_float_equal(r.expected_interruptions, 11.07046, 1e-4);
    /* twice the GPUs: half the MTBF, and the checkpoint shards over both (delta 25 s) */
    assert_int_equal(gpi_train_reliability_estimate(&rp, 2, 100000, 50e9, &r, &err), GP_OK);
    assert_float_equal(r.job_mtbf_s, 5000, 1e-6);
    assert_float_equal(r.checkpoint_s, 25, 1e-9);
}

static void test_serve_reliability(void **state)
{
    (void)state;
    gp_reliability_params rp;
    gpi_reliability_defaults(&rp);
    /* a replica of 2 GPUs failing 0.01/h each: 0.02/h, MTBF 50 h; MTTR 5 h:
     * a = 50 / 55 = 0.909091. One serving replica, target 0.99:
     * no spare: 0.909 < 0.99; one spare: 1 - (1 - a)^2 = 1 - 0.0082645 = 0.991736 */
    rp.gpu_failures_per_hour = 0.01;
    rp.mttr_hours = 5;
    gp_serve_reliability r;
    gp_error err;
    assert_int_equal(gpi_serve_reliability_estimate(&rp, 2, 1, 0, 0.99, &r, &err), GP_OK);
    assert_float_equal(r.replica_availability, 50.0 / 55.0, 1e-12);
    assert_int_equal(r.spares, 1);
    assert_float_equal(r.availability, 0.991736, 1e-6);
    /* no target: the minimum spares asked (n+1) stay */
    assert_int_equal(gpi_serve_reliability_estimate(&rp, 2, 1, 1, 0, &r, &err), GP_OK);
    assert_int_equal(r.spares, 1);
    /* two serving replicas, target 0.99: one spare gives P(>= 2 of 3) = a^3 + 3 a^2 (1-a)
     * = 0.751315 + 3 x 0.826446 x 0.090909 = 0.751315 + 0.225394 = 0.976709 < 0.99;
     * two spares: P(>= 2 of 4) = 1 - (1-a)^4 - 4 a (1-a)^3 = 1 - 0.0000683 - 0.0027320
     * = 0.997200 */
    assert_int_equal(gpi_serve_reliability_estimate(&rp, 2, 2, 0, 0.99, &r, &err), GP_OK);
    assert_int_equal(r.spares, 2);
    assert_float_equal(r.availability, 0.997200, 1e-6);
    assert_int_equal(gpi_serve_reliability_estimate(&rp, 2, 2, 0, 1.5, &r, &err), GP_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_health),
        cmocka_unit_test(test_other_profiles),
        cmocka_unit_test(test_train_reliability),
        cmocka_unit_test(test_serve_reliability),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
