/*
 * decision.c: the decision section of the report, the same sentences in text, Markdown and
 * HTML (messages.c holds them in both languages). Reads plan.h's "the decision" fields.
 */
#include "messages.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct out {
    gpi_buf *b;
    int pt, fmt;
    const char *cur;
} out;

static void title(const out *o, gpi_msg_id id)
{
    const char *t = gpi_msg(id, o->pt);
    if (o->fmt == 2) {
        gpi_buf_printf(o->b, "<h2>");
        gpi_buf_html(o->b, t);
        gpi_buf_printf(o->b, "</h2>\n");
    } else {
        gpi_buf_printf(o->b, o->fmt == 1 ? "\n## %s\n\n" : "\n%s\n", t);
    }
}

/* One sentence (or list item when item = 1). */
static void say_text(const out *o, int item, const char *s)
{
    if (o->fmt == 2) {
        gpi_buf_printf(o->b, item ? "<li>" : "<p>");
        gpi_buf_html(o->b, s);
        gpi_buf_printf(o->b, item ? "</li>\n" : "</p>\n");
    } else {
        gpi_buf_printf(o->b, "%s%s\n%s", item ? (o->fmt == 1 ? "- " : "  - ") : (o->fmt == 1 ? "" : "  "), s,
                       o->fmt == 1 && !item ? "\n" : ""); /* Markdown: a paragraph ends with a blank line */
    }
}

/* The same from a message and its arguments. */
static void say(const out *o, int item, gpi_msg_id id, const char *const *args, int n)
{
    char s[2048];
    gpi_msg_fill(s, sizeof s, gpi_msg(id, o->pt), args, n);
    say_text(o, item, s);
}

static void list(const out *o, int open)
{
    if (o->fmt == 2)
        gpi_buf_printf(o->b, open ? "<ul>\n" : "</ul>\n");
}

static const char *money(const out *o, char *buf, size_t n, double v)
{
    return gpi_fmt_money(buf, n, v, o->cur, o->pt);
}

static const char *where(const out *o, char *buf, size_t n, const char *country)
{
    if (!strcmp(country, "BR"))
        snprintf(buf, n, "%s", gpi_msg(MSG_COUNTRY_BR, o->pt));
    else if (!strcmp(country, "US"))
        snprintf(buf, n, "%s", gpi_msg(MSG_COUNTRY_US, o->pt));
    else {
        const char *a[1] = {country};
        gpi_msg_fill(buf, n, gpi_msg(MSG_WHERE_IN, o->pt), a, 1);
    }
    return buf;
}

static const char *servers_word(const out *o, char *buf, size_t n, int k)
{
    snprintf(buf, n, "%d %s", k, o->pt ? (k == 1 ? "servidor" : "servidores") : (k == 1 ? "server" : "servers"));
    return buf;
}

static double metric(const gp_plan_result *r, const gp_plan_option *p)
{
    return r->serving ? p->cost.total : p->cost.per_run;
}

static const char *dep_name(const out *o, const gp_deployment *d)
{
    return o->pt && d->name_pt[0] ? d->name_pt : d->name;
}

static void headline(const out *o, const gp_plan_result *res, const gp_plan_option *rec)
{
    char n[16], sv[48], w[64], d[48], t[48];
    snprintf(n, sizeof n, "%d", rec->gpus_total);
    servers_word(o, sv, sizeof sv, rec->cost.servers);
    where(o, w, sizeof w, rec->deployment.country);
    if (!res->serving) {
        const char *a[3] = {n, rec->gpu, dep_name(o, &rec->deployment)};
        say(o, 0, MSG_RECOMMEND_TRAIN, a, 3);
    } else {
        char ns[16];
        snprintf(ns, sizeof ns, "%d", rec->cost.servers); /* {4}: the adjective agrees with the servers */
        const char *a[5] = {n, rec->gpu, rec->deployment.kind == GP_DEPLOY_CLOUD ? dep_name(o, &rec->deployment) : sv,
                            w, ns};
        say(o, 0,
            rec->deployment.kind == GP_DEPLOY_OWNED       ? MSG_RECOMMEND_OWNED
            : rec->deployment.kind == GP_DEPLOY_BAREMETAL ? MSG_RECOMMEND_BAREMETAL
                                                          : MSG_RECOMMEND_CLOUD,
            a, 5);
        char r[16], per[16], sp[16];
        snprintf(r, sizeof r, "%d", rec->replicas);
        snprintf(per, sizeof per, "%d", rec->layout.tp * rec->layout.pp);
        snprintf(sp, sizeof sp, "%d", rec->serve_rel.spares);
        const char *b[4] = {gp_dtype_name(rec->dtype), r, per, sp};
        say(o, 0, MSG_SETUP_SERVE, b, 4);
    }
    list(o, 1);
    if (rec->cost.upfront > 0) {
        const char *a[1] = {money(o, d, sizeof d, rec->cost.upfront)};
        say(o, 1, MSG_CAPEX, a, 1);
    } else {
        say(o, 1, MSG_NO_CAPEX, NULL, 0);
    }
    const char *what = rec->deployment.kind == GP_DEPLOY_OWNED
                           ? (o->pt ? "energia e colocation" : "power and colocation")
                           : (o->pt ? "locação e tráfego de saída" : "rent and data egress");
    const char *a[2] = {money(o, d, sizeof d, rec->cost.monthly), what};
    say(o, 1, MSG_OPEX, a, 2);
    char m[16];
    snprintf(m, sizeof m, "%d", res->horizon_months);
    const char *c[2] = {m, money(o, t, sizeof t, rec->cost.total)};
    if (res->serving) {
        say(o, 1, MSG_TCO, c, 2);
        const char *e[1] = {money(o, d, sizeof d, rec->cost.per_million_tokens)};
        say(o, 1, MSG_PER_MTOK, e, 1);
    } else {
        char days[32];
        gpi_fmt_num(days, sizeof days, rec->train_rel.time_to_train_s / 86400.0, 1, o->pt);
        strcat(days, o->pt ? " dias" : " days");
        const char *e[2] = {money(o, d, sizeof d, rec->cost.per_run), days};
        say(o, 1, MSG_PER_RUN, e, 2);
    }
    list(o, 0);
}

static void why(const out *o, const gp_plan_result *res, const gp_plan_option *rec)
{
    static const gpi_msg_id names[GP_ALT_KIND_COUNT] = {MSG_ALT_CLOUD, MSG_ALT_BAREMETAL, MSG_ALT_OWNED,
                                                        MSG_ALT_OTHER_GPU, MSG_ALT_OTHER_PRECISION};
    title(o, MSG_WHY_TITLE);
    list(o, 1);
    for (int k = 0; k < GP_ALT_KIND_COUNT; k++) {
        const gp_plan_alternative *a = &res->alternatives[k];
        if (k <= GP_ALT_OWNED && (int)rec->deployment.kind == k)
            continue; /* the recommendation's own kind */
        char what[160], tot[48], extra[48], s[1024];
        const gp_plan_option *p = a->option >= 0     ? &res->options[a->option]
                                  : a->excluded >= 0 ? &res->excluded[a->excluded]
                                                     : NULL;
        if (!p) {
            const char *args[1] = {gpi_msg(names[k], o->pt)};
            say(o, 1, MSG_ALT_NONE, args, 1);
            continue;
        }
        snprintf(what, sizeof what, "%d x %s %s", p->gpus_total, p->gpu, gp_dtype_name(p->dtype));
        money(o, tot, sizeof tot, metric(res, p));
        if (a->option >= 0) {
            money(o, extra, sizeof extra, a->extra);
            const char *args[5] = {gpi_msg(names[k], o->pt), what, dep_name(o, &p->deployment), tot, extra};
            gpi_msg_fill(s, sizeof s, gpi_msg(MSG_ALT_MORE, o->pt), args, 5);
            if (a->break_even_month >= 0) {
                char mo[16], hz[16], be[256];
                snprintf(mo, sizeof mo, "%d", a->break_even_month);
                snprintf(hz, sizeof hz, "%d", res->horizon_months);
                const char *bargs[2] = {mo, hz};
                gpi_msg_fill(be, sizeof be,
                             gpi_msg(a->break_even_month > 0 ? MSG_BREAK_EVEN : MSG_BREAK_EVEN_NEVER, o->pt), bargs, 2);
                strncat(s, be, sizeof s - strlen(s) - 1);
            }
        } else {
            const gp_rule *r = &res->profile.rules[p->compliance.violated[0]];
            const char *args[6] = {gpi_msg(names[k], o->pt),       what, dep_name(o, &p->deployment), tot, r->id,
                                   o->pt ? r->text_pt : r->text_en};
            gpi_msg_fill(s, sizeof s, gpi_msg(MSG_ALT_LESS_EXCLUDED, o->pt), args, 6);
        }
        say_text(o, 1, s);
    }
    list(o, 0);
}

static void buy(const out *o, const gp_plan_result *res, const gp_plan_option *rec)
{
    title(o, MSG_BUY_TITLE);
    char g[16], sv[48], per[16], ru[16], kw[32], grid[32], pue[16];
    snprintf(g, sizeof g, "%d", rec->gpus_total);
    servers_word(o, sv, sizeof sv, rec->cost.servers);
    snprintf(per, sizeof per, "%d", rec->cost.gpus_per_server);
    snprintf(ru, sizeof ru, "%d", rec->cost.rack_units);
    gpi_fmt_num(kw, sizeof kw, rec->cost.power_kw, 1, o->pt);
    gpi_fmt_num(grid, sizeof grid, rec->cost.power_kw * res->pue, 1, o->pt);
    gpi_fmt_num(pue, sizeof pue, res->pue, 2, o->pt);
    char ns[16];
    snprintf(ns, sizeof ns, "%d", rec->cost.servers); /* {8}: words that agree with the servers */
    const char *a[9] = {g, rec->gpu, sv, per, ru, kw, grid, pue, ns};
    say(o, 0, rec->deployment.kind == GP_DEPLOY_OWNED ? MSG_BUY_OWNED : MSG_BUY_RENTED, a, 9);
}

static const char *pct(const out *o, char *buf, size_t n, double f)
{
    gpi_fmt_num(buf, n, f * 100, fabs(f * 100 - round(f * 100)) < 0.05 ? 0 : 1, o->pt);
    strncat(buf, o->pt ? "%" : "%", n - strlen(buf) - 1);
    return buf;
}

static void risks(const out *o, const gp_plan_result *res)
{
    if (!res->n_risks)
        return;
    const gp_plan_option *alt = res->runner_up >= 0 ? &res->options[res->runner_up] : NULL;
    char altname[160] = "";
    if (alt)
        snprintf(altname, sizeof altname, "%d x %s, %s", alt->gpus_total, alt->gpu, dep_name(o, &alt->deployment));
    title(o, MSG_RISKS_TITLE);
    list(o, 1);
    for (int i = 0; i < res->n_risks; i++) {
        const gp_plan_risk *r = &res->risks[i];
        char p[32], a[48], c[48], s[1536];
        const char *args[3] = {p, a, c};
        gpi_msg_id id = MSG_COUNT;
        money(o, a, sizeof a, fabs(r->size));
        money(o, c, sizeof c, fabs(r->alt_size));
        switch (r->kind) {
        case GP_RISK_EXCHANGE_RATE:
            pct(o, p, sizeof p, r->parameter);
            id = MSG_RISK_FX;
            break;
        case GP_RISK_IMPORT_DUTY:
            pct(o, p, sizeof p, r->parameter);
            id = MSG_RISK_DUTY;
            break;
        case GP_RISK_LEAD_TIME:
            gpi_fmt_num(p, sizeof p, r->parameter, 0, o->pt);
            id = MSG_RISK_LEAD;
            break;
        case GP_RISK_UTILIZATION:
            pct(o, p, sizeof p, r->parameter);
            if (r->size == 0)
                money(o, a, sizeof a, fabs(r->alt_size));
            id = r->size == 0 ? MSG_RISK_UTIL_OWNED : MSG_RISK_UTIL_RENTED;
            break;
        case GP_RISK_PRICE_CONFIDENCE: {
            const char *who = r->low_confidence == 3 ? (o->pt ? "os preços das duas opções" : "both options' prices")
                              : r->low_confidence == 1
                                  ? (o->pt ? "os preços da recomendação" : "the recommendation's prices")
                                  : (o->pt ? "os preços da segunda colocada" : "the runner-up's prices");
            snprintf(p, sizeof p, "%s", "");
            pct(o, a, sizeof a, fabs(r->parameter));
            const char *cargs[2] = {who, a};
            gpi_msg_fill(s, sizeof s, gpi_msg(MSG_RISK_CONF, o->pt), cargs, 2);
            say_text(o, 1, s);
            continue;
        }
        default: continue;
        }
        gpi_msg_fill(s, sizeof s, gpi_msg(id, o->pt), args, 3);
        if (r->flips && alt) {
            char f[512];
            const char *fa[1] = {altname};
            gpi_msg_fill(f, sizeof f, gpi_msg(MSG_RISK_FLIPS, o->pt), fa, 1);
            strncat(s, f, sizeof s - strlen(s) - 1);
        }
        say_text(o, 1, s);
    }
    list(o, 0);
}

static void policy(const out *o, const gp_plan_result *res, const gp_plan_option *rec)
{
    if (res->profile.n_rules == 0 && !res->profile.redundancy_why_en[0])
        return;
    title(o, MSG_POLICY_TITLE);
    const char *pa[1] = {o->pt ? res->profile.name_pt : res->profile.name_en};
    say(o, 0, MSG_POLICY_INTRO, pa, 1);
    list(o, 1);
    for (int i = 0; i < res->n_rule_prices; i++) {
        const gp_plan_rule_price *rp = &res->rule_prices[i];
        const gp_rule *r = &res->profile.rules[rp->rule];
        if (r->kind == GP_RULE_AUDIT_LOGGING)
            continue; /* an obligation, not a choice between options */
        char price[512], m[48], what[160], s[1536];
        const gp_plan_option *x = rp->excluded >= 0 ? &res->excluded[rp->excluded] : NULL;
        if (x)
            snprintf(what, sizeof what, "%d x %s %s, %s", x->gpus_total, x->gpu, gp_dtype_name(x->dtype),
                     dep_name(o, &x->deployment));
        money(o, m, sizeof m, fabs(rp->saving));
        const char *args[3] = {m, what, ""};
        if (r->kind == GP_RULE_REDUNDANCY && rp->priced)
            gpi_msg_fill(price, sizeof price, gpi_msg(MSG_POLICY_SPARE, o->pt), args, 3);
        else if (!x)
            gpi_msg_fill(price, sizeof price, gpi_msg(MSG_POLICY_NOTHING, o->pt), args, 3);
        else if (rp->saving > 0) {
            char t[48];
            args[1] = what;
            args[2] = money(o, t, sizeof t, metric(res, x));
            gpi_msg_fill(price, sizeof price, gpi_msg(MSG_POLICY_PRICE, o->pt), args, 3);
        } else
            gpi_msg_fill(price, sizeof price, gpi_msg(MSG_POLICY_FREE, o->pt), args, 3);
        snprintf(s, sizeof s, "%s: %s %s: %s", r->id, o->pt ? r->text_pt : r->text_en, o->pt ? "Preço" : "Price",
                 price);
        say_text(o, 1, s);
    }
    if (res->n_excluded > 0 && metric(res, &res->excluded[0]) < metric(res, rec)) {
        const gp_plan_option *x = &res->excluded[0];
        char what[160], t[48], d[48];
        snprintf(what, sizeof what, "%d x %s %s", x->gpus_total, x->gpu, gp_dtype_name(x->dtype));
        const char *args[4] = {what, dep_name(o, &x->deployment), money(o, t, sizeof t, metric(res, x)),
                               money(o, d, sizeof d, metric(res, rec) - metric(res, x))};
        say(o, 1, MSG_POLICY_ALL, args, 4);
    }
    char n[16];
    snprintf(n, sizeof n, "%d", res->redundancy);
    const char *why = o->pt ? res->profile.redundancy_why_pt : res->profile.redundancy_why_en;
    const char *ra[2] = {n, why};
    if (res->serving)
        say(o, 1, MSG_REDUNDANCY, ra, 2);
    list(o, 0);
}

void gpi_render_decision(gpi_buf *b, const gp_plan_result *res, int pt_br, int fmt)
{
    if (res->recommended < 0)
        return;
    out o = {b, pt_br, fmt, res->currency};
    const gp_plan_option *rec = &res->options[res->recommended];
    if (fmt == 2)
        gpi_buf_printf(b, "<section class=\"board\">\n");
    title(&o, MSG_BOARD_TITLE);
    headline(&o, res, rec);
    why(&o, res, rec);
    buy(&o, res, rec);
    risks(&o, res);
    policy(&o, res, rec);
    if (fmt == 2)
        gpi_buf_printf(b, "</section>\n");
}
