/*
 * messages.h: the report's message table (English and Brazilian Portuguese) and locale
 * formatting of numbers and money (library-internal). Templates use {0}..{9} for arguments
 * that the caller formats first (gpi_fmt_*), so both languages may order them freely, and
 * {k|one|other} for a word that agrees with argument k's count ("{0} {0|GPU|GPUs}": "1 GPU",
 * "8 GPUs"; the one form when the argument is "1").
 */
#ifndef GPI_MESSAGES_H
#define GPI_MESSAGES_H

#include "render.h"

typedef enum gpi_msg_id {
    MSG_BOARD_TITLE,
    MSG_RECOMMEND_OWNED,
    MSG_RECOMMEND_BAREMETAL,
    MSG_RECOMMEND_CLOUD,
    MSG_RECOMMEND_TRAIN,
    MSG_SETUP_SERVE,
    MSG_CAPEX,
    MSG_OPEX,
    MSG_TCO,
    MSG_PER_MTOK,
    MSG_PER_RUN,
    MSG_NO_CAPEX,
    MSG_WHY_TITLE,
    MSG_ALT_CLOUD,
    MSG_ALT_BAREMETAL,
    MSG_ALT_OWNED,
    MSG_ALT_OTHER_GPU,
    MSG_ALT_OTHER_PRECISION,
    MSG_ALT_MORE,
    MSG_ALT_LESS_EXCLUDED,
    MSG_ALT_EXCLUDED,
    MSG_ALT_NONE,
    MSG_BREAK_EVEN,
    MSG_BREAK_EVEN_NEVER,
    MSG_BUY_TITLE,
    MSG_BUY_OWNED,
    MSG_BUY_RENTED,
    MSG_RISKS_TITLE,
    MSG_RISK_FX,
    MSG_RISK_DUTY,
    MSG_RISK_CONF,
    MSG_RISK_LEAD,
    MSG_RISK_UTIL_OWNED,
    MSG_RISK_UTIL_RENTED,
    MSG_RISK_FLIPS,
    MSG_POLICY_TITLE,
    MSG_POLICY_INTRO,
    MSG_POLICY_PRICE,
    MSG_POLICY_FREE,
    MSG_POLICY_NOTHING,
    MSG_POLICY_SPARE,
    MSG_POLICY_ALL,
    MSG_REDUNDANCY,
    MSG_N_GPUS,
    MSG_SETUP_SHORT,
    MSG_RELIABILITY_SERVE,
    MSG_PROFILE_LINE,
    MSG_APPENDIX,
    MSG_COUNTRY_BR,
    MSG_COUNTRY_US,
    MSG_WHERE_IN,
    MSG_FIT_FITS,
    MSG_FIT_WEIGHTS,
    MSG_FIT_KV,
    MSG_FIT_PREFILL,
    MSG_FIT_TRAIN_STATE,
    MSG_FIT_TRAIN_ACT,
    MSG_FIT_NO_LAYOUT,
    MSG_FIT_JOB_SERVE,
    MSG_FIT_JOB_TRAIN,
    MSG_FIT_HOW_INFER,
    MSG_FIT_HOW_TRAIN,
    MSG_FIT_HOLD_INFER,
    MSG_FIT_HOLD_TRAIN,
    MSG_FIT_CONTEXT_MAX,
    MSG_FIT_LOWER_ITEM,
    MSG_FIT_LOWER,
    MSG_FIT_UNITS,
    MSG_FIT_BAD_TP,
    MSG_FIT_BAD_PP,
    MSG_FIT_LARGER_ITEM,
    MSG_FIT_LARGER,
    MSG_FIT_TXT_ONE,
    MSG_FIT_TXT_SEVERAL,
    MSG_FIT_TXT_NONE,
    MSG_FIT_TXT_ASKED,
    MSG_FIT_TXT_SMALLEST,
    MSG_FIT_TXT_MEMORY,
    MSG_FIT_TXT_FITS,
    MSG_FIT_TXT_NOT_FITS,
    MSG_FIT_TXT_ON_SETUP,
    MSG_FIT_TXT_HEAD_INFER,
    MSG_FIT_TXT_HEAD_TRAIN,
    MSG_FIT_TXT_WEIGHTS,
    MSG_FIT_TXT_KV,
    MSG_FIT_TXT_ACT,
    MSG_FIT_TXT_GRAD,
    MSG_FIT_TXT_OPT,
    MSG_FIT_TXT_OVERHEAD,
    MSG_FIT_TXT_CAPACITY,
    MSG_SERVE_SPANS,
    MSG_SERVE_ONE_NODE_BEATS,
    MSG_SERVE_ONE_NODE_HOLDS,
    MSG_SERVE_SPAN_CHEAPER,
    MSG_SERVE_EP_BEATS,
    MSG_SERVE_TP_BEATS,
    MSG_SERVE_ONE_GPU,
    MSG_SERVE_NOT_FIT,
    MSG_SERVE_LATENCY,
    MSG_SERVE_LATENCY_FEW,
    MSG_SERVE_CONCURRENCY,
    MSG_SERVE_CONCURRENCY_N,
    MSG_SERVE_REDUNDANCY,
    MSG_SERVE_LARGER,
    MSG_SERVE_NO_SETUP,
    MSG_SERVE_WHY_ERROR,
    MSG_SERVE_WHY_KV,
    MSG_SERVE_WHY_ALONE,
    MSG_SERVE_WHY_REPLICAS,
    MSG_SERVE_WHY_PLAIN,
    MSG_SERVE_WHY_NO_KV,
    MSG_COUNT
} gpi_msg_id;

const char *gpi_msg(gpi_msg_id id, int pt_br);
/* Fill a template: {k} -> args[k]. */
void gpi_msg_fill(char *out, size_t n, const char *tmpl, const char *const *args, int nargs);
/* Append message `id` with up to 10 string arguments (NULL-terminated list). */
void gpi_buf_msg(gpi_buf *b, int pt_br, gpi_msg_id id, ...);

/* An argument of a message in both languages: a string (its own Portuguese, if it has one),
 * or a number written by locale. */
typedef struct gpi_msg_arg {
    const char *s; /* NULL: the number v with `decimals` digits (negative: -decimals
                      significant digits, as %g writes them) */
    double v;
    int decimals;
    const char *s_pt; /* the string in Brazilian Portuguese (NULL: s) */
} gpi_msg_arg;
#define GPI_S(x)         ((gpi_msg_arg){(x), 0, 0, NULL})
#define GPI_S2(en, pt)   ((gpi_msg_arg){(en), 0, 0, (pt)})
#define GPI_N(x, d)      ((gpi_msg_arg){NULL, (double)(x), (d), NULL})
#define GPI_G(x, digits) ((gpi_msg_arg){NULL, (double)(x), -(digits), NULL})
/* Fill message `id` in one language from up to 10 arguments (numbers by that locale). */
void gpi_msg_args(char *out, size_t n, gpi_msg_id id, int pt_br, const gpi_msg_arg *args, int nargs);

/* 1234567.8 -> "1,234,568" (en) / "1.234.568" (pt-BR); `decimals` digits after the point. */
const char *gpi_fmt_num(char *out, size_t n, double v, int decimals, int pt_br);
/* Money by locale: pt-BR "R$ 3.600.043", "US$ 2,04"; en "BRL 3,600,043", "$2.04". Two decimals
 * below 100, none above. */
const char *gpi_fmt_money(char *out, size_t n, double v, const char *currency, int pt_br);

#endif

/* The decision section, first in every report (decision.c): the recommendation in plain
 * words, investment and monthly cost, why it wins against each kind of alternative with the
 * break-even, what to buy, the risks with their size, and the data rules with their price.
 * fmt: 0 text, 1 Markdown, 2 HTML. */
void gpi_render_decision(gpi_buf *b, const gp_plan_result *res, int pt_br, int fmt);
