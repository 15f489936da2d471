/*
 * compliance.c: data-sensitivity profiles (data/compliance.json through the catalog) and the
 * check of one option against them (docs/compliance.md). A rule is a row of the file, not a
 * code path: its kind says what it tests, its citation why. Guidance, not legal advice.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static const char *const rule_kind_names[GP_RULE_KIND_COUNT] = {
    "in_country", "dedicated", "min_weight_bits", "redundancy", "audit_logging", "datacenter_gpu",
};

const char *gpi_rule_kind_name(gp_rule_kind k)
{
    return (unsigned)k < GP_RULE_KIND_COUNT ? rule_kind_names[k] : "?";
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static gp_status parse_profile(json_t *e, gp_profile *out, json_t *root, gp_error *err)
{
    memset(out, 0, sizeof *out);
    gpi_strlcpy(out->id, str(e, "id"), sizeof out->id);
    json_t *name = json_object_get(e, "name");
    gpi_strlcpy(out->name_en, str(name, "en"), sizeof out->name_en);
    gpi_strlcpy(out->name_pt, *str(name, "pt-BR") ? str(name, "pt-BR") : out->name_en, sizeof out->name_pt);
    gpi_strlcpy(out->jurisdiction, str(e, "jurisdiction"), sizeof out->jurisdiction);
    json_t *disc = json_object_get(root, "disclaimer");
    gpi_strlcpy(out->disclaimer_en, str(disc, "en"), sizeof out->disclaimer_en);
    gpi_strlcpy(out->disclaimer_pt, str(disc, "pt-BR"), sizeof out->disclaimer_pt);
    json_t *why = json_object_get(json_object_get(e, "redundancy_default"), "why");
    gpi_strlcpy(out->redundancy_why_en, str(why, "en"), sizeof out->redundancy_why_en);
    gpi_strlcpy(out->redundancy_why_pt, *str(why, "pt-BR") ? str(why, "pt-BR") : out->redundancy_why_en,
                sizeof out->redundancy_why_pt);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(e, "rules"), i, r)
    {
        if (out->n_rules >= GP_PROFILE_MAX_RULES)
            break;
        gp_rule *rule = &out->rules[out->n_rules];
        const char *kind = str(r, "kind");
        rule->kind = GP_RULE_KIND_COUNT;
        for (int k = 0; k < GP_RULE_KIND_COUNT; k++)
            if (!strcmp(kind, rule_kind_names[k]))
                rule->kind = (gp_rule_kind)k;
        gpi_error_set_path(err, "compliance.json");
        if (rule->kind == GP_RULE_KIND_COUNT) {
            gpi_error_set_field(err, "kind");
            return gpi_fail(err, GP_EPARSE,
                            "compliance.json: profile '%s' rule %zu: unknown kind '%s' "
                            "(in_country, dedicated, min_weight_bits, redundancy, audit_logging, datacenter_gpu)",
                            out->id, i, kind);
        }
        if (!*str(r, "id") || !*str(r, "citation")) {
            gpi_error_set_field(err, *str(r, "id") ? "citation" : "id");
            return gpi_fail(err, GP_EPARSE, "compliance.json: profile '%s' rule %zu needs an 'id' and a 'citation'",
                            out->id, i);
        }
        if (rule->kind == GP_RULE_IN_COUNTRY && !out->jurisdiction[0]) {
            gpi_error_set_field(err, "jurisdiction");
            return gpi_fail(err, GP_EPARSE,
                            "compliance.json: profile '%s' has an in_country rule but no 'jurisdiction'", out->id);
        }
        if (err)
            err->path[0] = 0;
        gpi_strlcpy(rule->id, str(r, "id"), sizeof rule->id);
        json_t *mb = json_object_get(r, "min_bits"), *rp = json_object_get(r, "replicas");
        rule->min_bits = json_is_number(mb) ? json_number_value(mb) : 0;
        rule->replicas = json_is_integer(rp) ? (int)json_integer_value(rp) : 0;
        gpi_strlcpy(rule->citation, str(r, "citation"), sizeof rule->citation);
        gpi_strlcpy(rule->citation_pt, *str(r, "citation_pt") ? str(r, "citation_pt") : rule->citation,
                    sizeof rule->citation_pt);
        gpi_strlcpy(rule->url, str(r, "url"), sizeof rule->url);
        json_t *text = json_object_get(r, "text");
        gpi_strlcpy(rule->text_en, str(text, "en"), sizeof rule->text_en);
        gpi_strlcpy(rule->text_pt, *str(text, "pt-BR") ? str(text, "pt-BR") : rule->text_en, sizeof rule->text_pt);
        out->n_rules++;
    }
    return GP_OK;
}

gp_status gpi_compliance_profile(const gp_catalog *cat, const char *id, gp_profile *out, gp_error *err)
{
    gp_error_clear(err);
    memset(out, 0, sizeof *out);
    json_t *root = gpi_catalog_compliance(cat);
    if (!id || !*id)
        id = "none";
    size_t i;
    json_t *e;
    char known[256] = "";
    json_array_foreach(json_object_get(root, "profiles"), i, e)
    {
        if (gpi_strcaseeq(str(e, "id"), id))
            return parse_profile(e, out, root, err);
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", str(e, "id"));
    }
    if (gpi_strcaseeq(id, "none")) { /* always known, even when a user's file lacks it */
        gpi_strlcpy(out->id, "none", sizeof out->id);
        return GP_OK;
    }
    gpi_error_set_field(err, "compliance");
    return gpi_fail(err, GP_ENOTFOUND, "unknown compliance profile '%s' (profiles: %s)", id, known);
}

void gpi_compliance_check(const gp_profile *p, const gpi_compliance_subject *s, gp_compliance_verdict *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < p->n_rules; i++) {
        const gp_rule *r = &p->rules[i];
        int broken = 0, obligation = 0;
        switch (r->kind) {
        case GP_RULE_IN_COUNTRY:
            broken = s->deployment && !gpi_strcaseeq(s->deployment->country, p->jurisdiction);
            break;
        case GP_RULE_DEDICATED: broken = s->deployment && s->deployment->shared; break;
        case GP_RULE_MIN_WEIGHT_BITS:
            broken = s->weight_dtype != GP_DTYPE_UNKNOWN && gp_dtype_bits(s->weight_dtype) < r->min_bits;
            break;
        case GP_RULE_REDUNDANCY: broken = s->spare_replicas >= 0 && s->spare_replicas < r->replicas; break;
        case GP_RULE_DATACENTER_GPU: broken = s->consumer_gpu; break;
        case GP_RULE_AUDIT_LOGGING:
            broken = s->deployment && !s->deployment->audit_logging;
            obligation = !broken;
            break;
        default: break;
        }
        if (broken)
            out->violated[out->n_violated++] = i;
        else if (obligation)
            out->obligations[out->n_obligations++] = i;
    }
    out->allowed = out->n_violated == 0;
}

int gpi_compliance_redundancy(const gp_profile *p)
{
    int n = 0;
    for (int i = 0; i < p->n_rules; i++)
        if (p->rules[i].kind == GP_RULE_REDUNDANCY && p->rules[i].replicas > n)
            n = p->rules[i].replicas;
    return n;
}
