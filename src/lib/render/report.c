/*
 * report.c: a plan as text, Markdown or one self-contained HTML file (inline CSS and SVG
 * charts from svg.c; no scripts, fonts, images or links to fetch), in English or Brazilian
 * Portuguese, from the plan's structs; its JSON is the one JSON writer's (json.c,
 * gpi_json_plan). Renders into memory; the caller writes it where it wants.
 */
#include "json.h"
#include "messages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- words ------------------------------------------------------------------------------- */

typedef struct words {
    const char *title, *profile, *currency, *horizon, *months, *prices_as_of, *options_serve, *options_train, *excluded,
        *recommended, *rank, *gpu, *precision, *deployment, *setup, *gpus, *ttft, *throughput, *train_time, *monthly,
        *total, *per_mtok, *per_run, *break_even, *never, *rule, *citation, *notes, *launch, *disclaimer, *memory_chart,
        *cost_chart, *scaling_chart, *month_axis, *cost_axis, *gpus_axis, *tokens_axis, *bytes_axis, *capacity,
        *obligations, *reliability, *no_options, *upfront, *vs, *availability, *interruptions, *ckpt, *overhead,
        *egress, *charts, *why, *likely, *tok_s;
    const char *components[6];
} words;

static const words en = {
    "GPU plan",
    "Data profile",
    "Currency",
    "Horizon",
    "months",
    "Prices as of",
    "Options, ranked by total cost over the horizon",
    "Options, ranked by cost per training run",
    "Excluded by the data rules",
    "Recommended",
    "#",
    "GPU",
    "Precision",
    "Deployment",
    "Setup",
    "GPUs",
    "p99 TTFT",
    "Output tokens/s",
    "Time to train",
    "Per month",
    "Total",
    "Per million tokens",
    "Per run",
    "Owning breaks even",
    "not within the horizon",
    "Rule",
    "Citation",
    "Notes",
    "Launch command",
    "Disclaimer",
    "Memory per GPU by component",
    "Cumulative cost: renting vs owning",
    "Throughput vs GPU count",
    "month",
    "cumulative cost",
    "GPUs",
    "output tokens/s",
    "bytes per GPU",
    "device memory",
    "Obligations",
    "Reliability",
    "No option is allowed: every setup breaks a data rule or has no price.",
    "upfront",
    "vs",
    "availability",
    "expected interruptions",
    "checkpoint every",
    "failure overhead",
    "egress",
    "Charts",
    "Why",
    "Likely (10th-90th percentile of the error on published runs):",
    "output tokens/s",
    {"weights", "KV cache", "activations", "gradients", "optimizer", "overhead"},
};

static const words pt = {
    "Plano de GPUs",
    "Perfil de dados",
    "Moeda",
    "Horizonte",
    "meses",
    "Preços de",
    "Opções, ordenadas pelo custo total no horizonte",
    "Opções, ordenadas pelo custo por treinamento",
    "Excluídas pelas regras de dados",
    "Recomendada",
    "#",
    "GPU",
    "Precisão",
    "Implantação",
    "Configuração",
    "GPUs",
    "TTFT p99",
    "Tokens de saída/s",
    "Tempo de treino",
    "Por mês",
    "Total",
    "Por milhão de tokens",
    "Por treinamento",
    "Comprar se paga em",
    "fora do horizonte",
    "Regra",
    "Fonte",
    "Observações",
    "Comando de execução",
    "Aviso",
    "Memória por GPU por componente",
    "Custo acumulado: alugar vs comprar",
    "Vazão vs número de GPUs",
    "mês",
    "custo acumulado",
    "GPUs",
    "tokens de saída/s",
    "bytes por GPU",
    "memória do dispositivo",
    "Obrigações",
    "Confiabilidade",
    "Nenhuma opção permitida: toda configuração viola uma regra de dados ou não tem preço.",
    "investimento inicial",
    "vs",
    "disponibilidade",
    "interrupções esperadas",
    "checkpoint a cada",
    "sobrecarga de falhas",
    "tráfego de saída",
    "Gráficos",
    "Motivo",
    "Provável (percentis 10-90 do erro em execuções publicadas):",
    "tokens de saída/s",
    {"pesos", "cache KV", "ativações", "gradientes", "otimizador", "sobrecarga"},
};

static int is_pt(const gpi_report_opts *o)
{
    return o && o->lang && (o->lang[0] == 'p' || o->lang[0] == 'P');
}

static const char *dep_name_pt(const char *kind)
{
    return !strcmp(kind, "cloud") ? "nuvem" : !strcmp(kind, "baremetal") ? "bare metal dedicado" : "próprio";
}

/* A count in words from the message table: "1 GPU", "8 GPUs". */
static const char *count_str(char *out, size_t n, gpi_msg_id id, int pt_br, int count)
{
    char c[16];
    snprintf(c, sizeof c, "%d", count);
    const char *a[1] = {c};
    gpi_msg_fill(out, n, gpi_msg(id, pt_br), a, 1);
    return out;
}

static void setup_str(char *out, size_t n, const gp_plan_option *o, int serving, const words *W)
{
    if (serving) {
        char r[16], tp[16], sp[16];
        snprintf(r, sizeof r, "%d", o->replicas);
        snprintf(tp, sizeof tp, "%d", o->layout.tp);
        snprintf(sp, sizeof sp, "%d", o->serve_rel.spares);
        const char *a[3] = {r, tp, sp};
        gpi_msg_fill(out, n, gpi_msg(MSG_SETUP_SHORT, W == &pt), a, 3);
    } else
        snprintf(out, n, "TP%d PP%d DP%d ZeRO-%d", o->layout.tp, o->layout.pp, o->layout.dp, o->layout.zero);
}

static const char *break_even_str(char *out, size_t n, const gp_plan_option *o, const words *W)
{
    if (o->deployment.kind != GP_DEPLOY_OWNED || !o->break_even_vs[0])
        snprintf(out, n, "-");
    else if (o->break_even_month > 0)
        snprintf(out, n, "%s %d %s %s", W->month_axis, o->break_even_month, W->vs, o->break_even_vs);
    else
        snprintf(out, n, "%s (%s %s)", W->never, W->vs, o->break_even_vs);
    return out;
}

/* ---- text and Markdown ------------------------------------------------------------------ */

static void rows(gpi_buf *b, const gp_plan_result *res, const gp_plan_option *list, int n, int md, const words *W,
                 int pt_br, int excluded)
{
    char a[64], c[64], e[64], f[96], s[64];
    if (md) {
        gpi_buf_printf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                       excluded ? W->rule : W->rank, W->gpu, W->precision, W->deployment, W->setup, W->gpus,
                       res->serving ? W->ttft : W->train_time, W->upfront, W->monthly, W->total,
                       res->serving ? W->per_mtok : W->per_run, W->break_even);
        gpi_buf_printf(b, "|---|---|---|---|---|--:|--:|--:|--:|--:|--:|---|\n");
    } else {
        gpi_buf_printf(b, "  %-26s %-16s %-9s %-15s %-18s %5s %9s %16s %14s %16s %18s  %s\n",
                       excluded ? W->rule : W->rank, W->gpu, W->precision, W->deployment, W->setup, W->gpus,
                       res->serving ? W->ttft : W->train_time, W->upfront, W->monthly, W->total,
                       res->serving ? W->per_mtok : W->per_run, W->break_even);
    }
    for (int i = 0; i < n; i++) {
        const gp_plan_option *o = &list[i];
        char first[80];
        if (excluded)
            snprintf(first, sizeof first, "%s", res->profile.rules[o->compliance.violated[0]].id);
        else
            snprintf(first, sizeof first, "%d", o->rank);
        setup_str(s, sizeof s, o, res->serving, W);
        char lat[32];
        if (res->serving)
            (void)gpi_fmt_num(lat, sizeof lat - 3, o->serve.sim.ttft.p99, 3, pt_br), strcat(lat, " s");
        else
            (void)gpi_fmt_num(lat, sizeof lat - 3, o->train_rel.time_to_train_s / 86400, 1, pt_br), strcat(lat, " d");
        gpi_fmt_money(a, sizeof a, o->cost.monthly, res->currency, pt_br);
        gpi_fmt_money(c, sizeof c, o->cost.total, res->currency, pt_br);
        gpi_fmt_money(e, sizeof e, res->serving ? o->cost.per_million_tokens : o->cost.per_run, res->currency, pt_br);
        char u[64];
        if (o->cost.upfront > 0)
            gpi_fmt_money(u, sizeof u, o->cost.upfront, res->currency, pt_br);
        else
            snprintf(u, sizeof u, "-");
        break_even_str(f, sizeof f, o, W);
        if (md)
            gpi_buf_printf(b, "| %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", first, o->gpu,
                           gp_dtype_name(o->dtype), o->deployment.id, s, o->gpus_total, lat, u, a, c, e, f);
        else
            gpi_buf_printf(b, "  %-26s %-16s %-9s %-15s %-18s %5d %9s %16s %14s %16s %18s  %s\n", first, o->gpu,
                           gp_dtype_name(o->dtype), o->deployment.id, s, o->gpus_total, lat, u, a, c, e, f);
    }
}

/* The recommendation in one line, its likely range (serving), and its launch command. */
static void render_recommended(gpi_buf *b, const gp_plan_result *res, const words *W, int pt_br, int md)
{
    const char *h2 = md ? "\n## " : "\n";
    const gp_plan_option *o = &res->options[res->recommended];
    char s[64], t[64], m[64];
    setup_str(s, sizeof s, o, res->serving, W);
    gpi_fmt_money(t, sizeof t, o->cost.total, res->currency, pt_br);
    gpi_fmt_money(m, sizeof m, res->serving ? o->cost.per_million_tokens : o->cost.per_run, res->currency, pt_br);
    char g[32];
    gpi_buf_printf(b, "%s%s: %s %s, %s (%s), %s = %s; %s %s / %d %s; %s %s\n", h2, W->recommended, o->gpu,
                   gp_dtype_name(o->dtype), o->deployment.id,
                   pt_br ? dep_name_pt(gpi_deploy_kind_name(o->deployment.kind))
                         : gpi_deploy_kind_name(o->deployment.kind),
                   s, count_str(g, sizeof g, MSG_N_GPUS, pt_br, o->gpus_total), W->total, t, res->horizon_months,
                   W->months, res->serving ? W->per_mtok : W->per_run, m);
    if (res->serving) {
        double lo = 1.0 + o->error_p10, hi = 1.0 + o->error_p90;
        char t1[32], t2[32], l1[32], l2[32];
        gpi_buf_printf(b, "%s%s %s-%s %s, p99 TTFT %s-%s s\n", md ? "\n" : "  ", W->likely,
                       gpi_fmt_num(t1, sizeof t1, o->throughput_tokens_per_s / hi, 0, pt_br),
                       gpi_fmt_num(t2, sizeof t2, o->throughput_tokens_per_s / lo, 0, pt_br), W->tok_s,
                       gpi_fmt_num(l1, sizeof l1, o->serve.sim.ttft.p99 * lo, 3, pt_br),
                       gpi_fmt_num(l2, sizeof l2, o->serve.sim.ttft.p99 * hi, 3, pt_br));
    }
    if (res->launch_command[0])
        gpi_buf_printf(b, "%s%s (%s):\n%s%s\n%s", md ? "\n" : "  ", W->launch, res->launch_engine,
                       md ? "\n```sh\n" : "    ", res->launch_command, md ? "```\n" : "");
}

static void render_text(gpi_buf *b, const gp_plan_request *req, const gp_plan_result *res, const gpi_report_opts *opts,
                        int md)
{
    int pt_br = is_pt(opts);
    const words *W = pt_br ? &pt : &en;
    char q[512];
    gpi_plan_question(q, sizeof q, req, res, pt_br);
    const char *h1 = md ? "# " : "", *h2 = md ? "\n## " : "\n";
    gpi_buf_printf(b, "%s%s: %s\n\n", h1, opts && opts->title ? opts->title : W->title,
                   opts && opts->question ? opts->question : q);
    char rate[32];
    gpi_fmt_num(rate, sizeof rate, res->per_usd, 4, pt_br);
    char prof[256];
    const char *pa[2] = {pt_br ? res->profile.name_pt : res->profile.name_en, res->profile.id};
    gpi_msg_fill(prof, sizeof prof, gpi_msg(MSG_PROFILE_LINE, pt_br), pa, 2);
    gpi_buf_printf(b, "%s%s: %s%s%s: %s (1 USD = %s %s)%s%s: %d %s%s%s: %s\n", md ? "- " : "", W->profile, prof,
                   md ? "\n- " : "; ", W->currency, res->currency, rate, res->currency, md ? "\n- " : "; ", W->horizon,
                   res->horizon_months, W->months, md ? "\n- " : "; ", W->prices_as_of, res->prices_as_of);
    gpi_render_decision(b, res, pt_br, md ? 1 : 0);
    if (res->recommended >= 0)
        render_recommended(b, res, W, pt_br, md);
    gpi_buf_printf(b, "%s%s\n%s", h2, res->serving ? W->options_serve : W->options_train, md ? "\n" : "");
    if (res->n_options)
        rows(b, res, res->options, res->n_options, md, W, pt_br, 0);
    else
        gpi_buf_printf(b, "  %s\n", W->no_options);
    if (res->n_excluded) {
        gpi_buf_printf(b, "%s%s\n%s", h2, gpi_msg(MSG_APPENDIX, pt_br), md ? "\n" : "");
        rows(b, res, res->excluded, res->n_excluded, md, W, pt_br, 1);
        /* each rule that excluded something, once, with its citation */
        gpi_buf_printf(b, "%s", md ? "\n" : "\n");
        for (int r = 0; r < res->profile.n_rules; r++) {
            int used = 0;
            for (int i = 0; i < res->n_excluded && !used; i++)
                for (int k = 0; k < res->excluded[i].compliance.n_violated; k++)
                    used |= res->excluded[i].compliance.violated[k] == r;
            if (!used)
                continue;
            const gp_rule *rule = &res->profile.rules[r];
            gpi_buf_printf(b, "%s[%s] %s (%s: %s)\n", md ? "- " : "  - ", rule->id, gpi_rule_text(rule, pt_br),
                           W->citation, gpi_rule_citation(rule, pt_br));
        }
    }
    int any_oblig = 0;
    for (int r = 0; r < res->profile.n_rules; r++)
        if (res->profile.rules[r].kind == GP_RULE_AUDIT_LOGGING) {
            if (!any_oblig++)
                gpi_buf_printf(b, "%s%s\n%s", h2, W->obligations, md ? "\n" : "");
            gpi_buf_printf(b, "%s[%s] %s (%s)\n", md ? "- " : "  - ", res->profile.rules[r].id,
                           gpi_rule_text(&res->profile.rules[r], pt_br),
                           gpi_rule_citation(&res->profile.rules[r], pt_br));
        }
    if (res->recommended >= 0) {
        const gp_plan_option *o = &res->options[res->recommended];
        gpi_buf_printf(b, "%s%s\n%s", h2, W->reliability, md ? "\n" : "");
        if (res->serving) {
            char av[32];
            gpi_fmt_num(av, sizeof av - 2, o->serve_rel.availability * 100, 4, pt_br);
            strcat(av, "%");
            char sv[16], sp[16], line[160];
            snprintf(sv, sizeof sv, "%d", o->serve_rel.serving);
            snprintf(sp, sizeof sp, "%d", o->serve_rel.spares);
            const char *a[3] = {sv, sp, av};
            gpi_msg_fill(line, sizeof line, gpi_msg(MSG_RELIABILITY_SERVE, pt_br), a, 3);
            gpi_buf_printf(b, "%s%s\n", md ? "- " : "  ", line);
        } else
            gpi_buf_printf(b, "%s%s %.1f; %s %.0f s; %s %.1f%%\n", md ? "- " : "  ", W->interruptions,
                           o->train_rel.expected_interruptions, W->ckpt, o->train_rel.checkpoint_interval_s,
                           W->overhead, o->train_rel.overhead_fraction * 100);
    }
    if (res->n_notes) {
        gpi_buf_printf(b, "%s%s\n%s", h2, W->notes, md ? "\n" : "");
        for (int i = 0; i < res->n_notes; i++)
            gpi_buf_printf(b, "%s%s\n", md ? "- " : "  - ", res->notes[i]);
    }
    const char *disc = pt_br ? res->profile.disclaimer_pt : res->profile.disclaimer_en;
    if (disc[0])
        gpi_buf_printf(b, "%s%s\n%s%s\n", h2, W->disclaimer, md ? "\n" : "  ", disc);
}

/* ---- HTML ----------------------------------------------------------------------------------- */

static void html_table(gpi_buf *b, const gp_plan_result *res, const gp_plan_option *list, int n, const words *W,
                       int pt_br, int excluded)
{
    gpi_buf_printf(b,
                   "<table><thead><tr><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th>"
                   "<th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th></tr></thead><tbody>\n",
                   excluded ? W->rule : W->rank, W->gpu, W->precision, W->deployment, W->setup, W->gpus,
                   res->serving ? W->ttft : W->train_time, W->throughput, W->upfront, W->monthly, W->total,
                   res->serving ? W->per_mtok : W->per_run, excluded ? W->citation : W->break_even);
    for (int i = 0; i < n; i++) {
        const gp_plan_option *o = &list[i];
        char s[64], a[64], c[64], e[64], f[96], u[64];
        setup_str(s, sizeof s, o, res->serving, W);
        gpi_fmt_money(a, sizeof a, o->cost.monthly, res->currency, pt_br);
        gpi_fmt_money(c, sizeof c, o->cost.total, res->currency, pt_br);
        gpi_fmt_money(e, sizeof e, res->serving ? o->cost.per_million_tokens : o->cost.per_run, res->currency, pt_br);
        if (o->cost.upfront > 0)
            gpi_fmt_money(u, sizeof u, o->cost.upfront, res->currency, pt_br);
        else
            snprintf(u, sizeof u, "-");
        gpi_buf_printf(b, "<tr%s><td>", !excluded && o->rank == 1 ? " class=\"best\"" : "");
        if (excluded) {
            for (int k = 0; k < o->compliance.n_violated; k++) {
                gpi_buf_printf(b, "%s<code>", k ? "<br>" : "");
                gpi_buf_html(b, res->profile.rules[o->compliance.violated[k]].id);
                gpi_buf_printf(b, "</code>");
            }
        } else {
            gpi_buf_printf(b, "%d", o->rank);
        }
        gpi_buf_printf(b, "</td><td>");
        gpi_buf_html(b, o->gpu);
        if (o->consumer)
            gpi_buf_printf(b, " <small>(%s)</small>", pt_br ? "placa de consumo" : "consumer card");
        gpi_buf_printf(b, "</td><td>%s</td><td>", gp_dtype_name(o->dtype));
        gpi_buf_html(b, pt_br && o->deployment.name_pt[0] ? o->deployment.name_pt : o->deployment.name);
        gpi_buf_printf(b, "</td><td>%s</td><td class=\"n\">%d</td>", s, o->gpus_total);
        if (res->serving) {
            char l[32], t[32];
            gpi_fmt_num(l, sizeof l, o->serve.sim.ttft.p99, 3, pt_br);
            gpi_fmt_num(t, sizeof t, o->throughput_tokens_per_s, 0, pt_br);
            gpi_buf_printf(b, "<td class=\"n\">%s s</td><td class=\"n\">%s</td>", l, t);
        } else
            gpi_buf_printf(b, "<td class=\"n\">%.1f d</td><td class=\"n\">%.0f</td>",
                           o->train_rel.time_to_train_s / 86400, o->throughput_tokens_per_s);
        gpi_buf_printf(
            b, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>", u, a,
            c, e);
        if (excluded)
            gpi_buf_html(b, gpi_rule_citation(&res->profile.rules[o->compliance.violated[0]], pt_br));
        else
            gpi_buf_html(b, break_even_str(f, sizeof f, o, W));
        gpi_buf_printf(b, "</td></tr>\n");
    }
    gpi_buf_printf(b, "</tbody></table>\n");
}

static void html_charts(gpi_buf *b, const gp_plan_result *res, const words *W)
{
    /* memory per GPU: one bar per distinct setup (GPU, precision, TP) */
    gpi_bar bars[24];
    int nb = 0;
    for (int pass = 0; pass < 2; pass++) {
        const gp_plan_option *list = pass ? res->excluded : res->options;
        int n = pass ? res->n_excluded : res->n_options;
        for (int i = 0; i < n && nb < 24; i++) {
            const gp_plan_option *o = &list[i];
            char label[96];
            snprintf(label, sizeof label, "%s %s TP%d", o->gpu, gp_dtype_name(o->dtype), o->layout.tp);
            int dup = 0;
            for (int k = 0; k < nb; k++)
                dup |= !strcmp(bars[k].label, label);
            if (dup)
                continue;
            gpi_bar *bar = &bars[nb++];
            memset(bar, 0, sizeof *bar);
            gpi_strlcpy(bar->label, label, sizeof bar->label);
            const gp_memory *m = &o->memory;
            double v[6] = {(double)m->weights,   (double)m->kv_cache,  (double)m->activations,
                           (double)m->gradients, (double)m->optimizer, (double)m->overhead};
            memcpy(bar->value, v, sizeof v);
            bar->capacity = (double)m->capacity;
        }
    }
    gpi_buf_printf(b, "<figure>");
    gpi_svg_stacked_bars(b, W->memory_chart, W->bytes_axis, W->components, 6, bars, nb, W->capacity);
    gpi_buf_printf(b, "</figure>\n");

    /* cumulative cost of the recommended setup in each deployment */
    if (res->recommended >= 0) {
        const gp_plan_option *best = &res->options[res->recommended];
        gpi_series series[GP_PRICES_MAX_DEPLOYMENTS];
        char names[GP_PRICES_MAX_DEPLOYMENTS][64];
        int ns = 0, mark = 0;
        for (int pass = 0; pass < 2; pass++) {
            const gp_plan_option *list = pass ? res->excluded : res->options;
            int n = pass ? res->n_excluded : res->n_options;
            for (int i = 0; i < n && ns < GP_PRICES_MAX_DEPLOYMENTS; i++) {
                const gp_plan_option *o = &list[i];
                if (strcmp(o->gpu, best->gpu) || o->dtype != best->dtype || o->gpus_total != best->gpus_total)
                    continue;
                snprintf(names[ns], sizeof names[ns], "%s%s", o->deployment.id,
                         pass        ? " (x)"
                         : o == best ? (W == &pt ? " (recomendada)" : " (recommended)")
                                     : "");
                series[ns].name = names[ns];
                series[ns].y = o->cost.cumulative;
                series[ns].n = o->cost.months + 1;
                if (o == best && o->deployment.kind == GP_DEPLOY_OWNED && o->break_even_month > 0)
                    mark = o->break_even_month; /* the recommendation's, against the allowed rental */
                ns++;
            }
        }
        char title[160], ylab[64], ml[128];
        snprintf(title, sizeof title, "%s (%s %s)", W->cost_chart, best->gpu, gp_dtype_name(best->dtype));
        snprintf(ylab, sizeof ylab, "%s (%s)", W->cost_axis, res->currency);
        snprintf(ml, sizeof ml, "%s: %s %d %s %s", W->break_even, W->month_axis, mark, W->vs, best->break_even_vs);
        gpi_buf_printf(b, "<figure>");
        gpi_svg_lines(b, title, W->month_axis, ylab, series, ns, mark, mark ? ml : NULL);
        gpi_buf_printf(b, "</figure>\n");
    }
    if (res->n_points > 0) {
        gpi_point pts[GP_PLAN_MAX_POINTS];
        char groups[GP_PLAN_MAX_POINTS][80];
        for (int i = 0; i < res->n_points; i++) {
            snprintf(groups[i], sizeof groups[i], "%s %s", res->points[i].gpu, gp_dtype_name(res->points[i].dtype));
            pts[i].group = groups[i];
            pts[i].x = res->points[i].gpus;
            pts[i].y = res->points[i].throughput_tokens_per_s;
            pts[i].filled = res->points[i].meets;
        }
        gpi_buf_printf(b, "<figure>");
        gpi_svg_scatter(b, W->scaling_chart, W->gpus_axis, W->tokens_axis, pts, res->n_points);
        gpi_buf_printf(b, "</figure>\n");
    }
}

/* The recommended option's box: its setup, total and unit cost, and its launch command. */
static void html_recommended(gpi_buf *b, const gp_plan_result *res, const words *W, int pt_br)
{
    const gp_plan_option *o = &res->options[res->recommended];
    char s[64], t[64], m[64];
    setup_str(s, sizeof s, o, res->serving, W);
    gpi_fmt_money(t, sizeof t, o->cost.total, res->currency, pt_br);
    gpi_fmt_money(m, sizeof m, res->serving ? o->cost.per_million_tokens : o->cost.per_run, res->currency, pt_br);
    gpi_buf_printf(b, "<div class=\"box\"><h2>%s</h2><p><strong>", W->recommended);
    gpi_buf_html(b, o->gpu);
    gpi_buf_printf(b, " %s</strong>, ", gp_dtype_name(o->dtype));
    gpi_buf_html(b, pt_br && o->deployment.name_pt[0] ? o->deployment.name_pt : o->deployment.name);
    char g[32];
    gpi_buf_printf(b, ": %s = %s. %s: %s / %d %s; %s: %s.</p>\n", s,
                   count_str(g, sizeof g, MSG_N_GPUS, pt_br, o->gpus_total), W->total, t, res->horizon_months,
                   W->months, res->serving ? W->per_mtok : W->per_run, m);
    if (res->launch_command[0]) {
        gpi_buf_printf(b, "<p>%s (%s):</p><pre>", W->launch, res->launch_engine);
        gpi_buf_html(b, res->launch_command);
        gpi_buf_printf(b, "</pre>\n");
    }
    gpi_buf_printf(b, "</div>\n");
}

/* The appendix: the options the data rules exclude, and each rule with its citation. */
static void html_excluded(gpi_buf *b, const gp_plan_result *res, const words *W, int pt_br)
{
    gpi_buf_printf(b, "<h2 class=\"appendix\">%s</h2>\n", gpi_msg(MSG_APPENDIX, pt_br));
    html_table(b, res, res->excluded, res->n_excluded, W, pt_br, 1);
    gpi_buf_printf(b, "<ul>");
    for (int r = 0; r < res->profile.n_rules; r++) {
        const gp_rule *rule = &res->profile.rules[r];
        gpi_buf_printf(b, "<li><code>");
        gpi_buf_html(b, rule->id);
        gpi_buf_printf(b, "</code>: ");
        gpi_buf_html(b, gpi_rule_text(rule, pt_br));
        gpi_buf_printf(b, " <em>");
        gpi_buf_html(b, gpi_rule_citation(rule, pt_br));
        gpi_buf_printf(b, "</em></li>\n"); /* the norms' addresses are in the JSON and docs/compliance.md:
                                             the HTML file names nothing outside itself */
    }
    gpi_buf_printf(b, "</ul>\n");
}

static void render_html(gpi_buf *b, const gp_plan_request *req, const gp_plan_result *res, const gpi_report_opts *opts)
{
    int pt_br = is_pt(opts);
    const words *W = pt_br ? &pt : &en;
    char q[512];
    gpi_plan_question(q, sizeof q, req, res, pt_br);
    const char *title = opts && opts->title ? opts->title : W->title;
    gpi_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\"><title>",
                   pt_br ? "pt-BR" : "en");
    gpi_buf_html(b, title);
    gpi_buf_printf(
        b, "</title><style>\n"
           "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1100px;margin:2em "
           "auto;color:#222;padding:0 1em}\n"
           "table{border-collapse:collapse;width:100%%;font-size:13px;margin:0.5em 0 1.5em}\n"
           "th,td{border-bottom:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}\n"
           "td.n{text-align:right;white-space:nowrap}tr.best{background:#eef7ee}\n"
           "pre{background:#f4f4f4;padding:0.8em;white-space:pre-wrap;word-break:break-all;font-size:12px}\n"
           ".box{border:1px solid #9c9;background:#f6fbf6;padding:0.6em 1em;margin:1em 0}\n"
           ".disc{font-size:12px;color:#555;border-top:1px solid #ccc;margin-top:2em;padding-top:0.5em}\n"
           "figure{margin:1em 0;page-break-inside:avoid}svg{max-width:100%%;height:auto;font-family:sans-serif}\n"
           ".board{border:2px solid #2a6;padding:0.2em 1.2em 0.8em;margin:1em 0;background:#fbfefb}.board "
           "h2{margin-top:0.8em}\n"
           "@media print{@page{size:A4;margin:14mm}body{margin:0;max-width:none;font-size:11px}"
           ".board{page-break-after:always;border:none;padding:0}.box,pre,figure,tr{page-break-inside:avoid}"
           "h2.appendix{page-break-before:always}table{font-size:9px}}\n"
           "</style></head><body>\n<h1>");
    gpi_buf_html(b, title);
    gpi_buf_printf(b, "</h1>\n<p><strong>");
    gpi_buf_html(b, opts && opts->question ? opts->question : q);
    gpi_buf_printf(b, "</strong></p>\n<ul><li>%s: ", W->profile);
    char prof[256];
    const char *pa[2] = {pt_br ? res->profile.name_pt : res->profile.name_en, res->profile.id};
    gpi_msg_fill(prof, sizeof prof, gpi_msg(MSG_PROFILE_LINE, pt_br), pa, 2);
    gpi_buf_html(b, prof);
    char rate[32];
    gpi_fmt_num(rate, sizeof rate, res->per_usd, 4, pt_br);
    gpi_buf_printf(b, "</li><li>%s: %s (1 USD = %s %s)</li><li>%s: %d %s</li><li>%s: ", W->currency, res->currency,
                   rate, res->currency, W->horizon, res->horizon_months, W->months, W->prices_as_of);
    gpi_buf_html(b, res->prices_as_of);
    gpi_buf_printf(b, "; %s %.2f TB/%s</li></ul>\n", W->egress, res->egress_tb_per_month, W->month_axis);
    gpi_render_decision(b, res, pt_br, 2);
    if (res->recommended >= 0)
        html_recommended(b, res, W, pt_br);
    gpi_buf_printf(b, "<h2>%s</h2>\n", res->serving ? W->options_serve : W->options_train);
    if (res->n_options)
        html_table(b, res, res->options, res->n_options, W, pt_br, 0);
    else
        gpi_buf_printf(b, "<p>%s</p>\n", W->no_options);
    if (res->n_excluded)
        html_excluded(b, res, W, pt_br);
    gpi_buf_printf(b, "<h2>%s</h2>\n", W->charts);
    html_charts(b, res, W);
    if (res->n_notes) {
        gpi_buf_printf(b, "<h2>%s</h2><ul>", W->notes);
        for (int i = 0; i < res->n_notes; i++) {
            gpi_buf_printf(b, "<li>");
            gpi_buf_html(b, res->notes[i]);
            gpi_buf_printf(b, "</li>");
        }
        gpi_buf_printf(b, "</ul>\n");
    }
    const char *disc = pt_br ? res->profile.disclaimer_pt : res->profile.disclaimer_en;
    gpi_buf_printf(b, "<p class=\"disc\"><strong>%s.</strong> ", W->disclaimer);
    gpi_buf_html(b, disc[0] ? disc
                            : (pt_br ? "Estimativas; confira os preços e as premissas em docs/cost.md."
                                     : "Estimates; check prices and assumptions in docs/cost.md."));
    gpi_buf_printf(b, " gpuplan %s.</p>\n</body></html>\n", GP_VERSION_STRING);
}

gpi_report_format gpi_report_format_parse(const char *s)
{
    static const char *const names[GPI_REPORT_FORMAT_COUNT] = {"text", "json", "markdown", "html"};
    for (int i = 0; s && i < GPI_REPORT_FORMAT_COUNT; i++)
        if (gpi_strcaseeq(s, names[i]))
            return (gpi_report_format)i;
    if (s && (gpi_strcaseeq(s, "md") || gpi_strcaseeq(s, "txt")))
        return gpi_strcaseeq(s, "md") ? GPI_REPORT_MARKDOWN : GPI_REPORT_TEXT;
    return GPI_REPORT_FORMAT_COUNT;
}

gp_status gpi_report_render(const gp_plan_request *req, const gp_plan_result *res, const gpi_report_opts *opts,
                            char **out, size_t *len, gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    if (len)
        *len = 0;
    if (!req || !res)
        return gpi_fail(err, GP_EINVAL, "report: a request and a plan are needed");
    gpi_report_format f = opts ? opts->format : GPI_REPORT_TEXT;
    if (opts && opts->lang && !gpi_strcaseeq(opts->lang, "en") && !gpi_strcaseeq(opts->lang, "pt-BR") &&
        !gpi_strcaseeq(opts->lang, "pt")) {
        gpi_error_set_field(err, "lang");
        return gpi_fail(err, GP_EINVAL, "unknown report language '%s' (en, pt-BR)", opts->lang);
    }
    if (f == GPI_REPORT_JSON) /* the one JSON writer's document (render/json.c) */
        return gpi_json_text(gpi_json_plan(req, res, is_pt(opts), opts ? opts->question : NULL), out,
                             len ? len : &(size_t){0}, err);
    gpi_buf b = {0};
    if (f == GPI_REPORT_HTML) {
        render_html(&b, req, res, opts);
    } else if (f == GPI_REPORT_TEXT || f == GPI_REPORT_MARKDOWN) {
        render_text(&b, req, res, opts, f == GPI_REPORT_MARKDOWN);
    } else {
        gpi_error_set_field(err, "format");
        return gpi_fail(err, GP_EINVAL, "unknown report format (text, json, markdown, html)");
    }
    if (b.failed) {
        free(b.s);
        return gpi_fail(err, GP_ENOMEM, "out of memory rendering the report");
    }
    *out = b.s;
    if (len)
        *len = b.len;
    return GP_OK;
}

void gpi_report_free(char *s)
{
    free(s);
}
