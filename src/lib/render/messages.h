/*
 * messages.h: the report's message table (English and Brazilian Portuguese) and locale
 * formatting of numbers and money (library-internal). Templates use {0}..{9} for arguments
 * that the caller formats first (gpi_fmt_*), so both languages may order them freely.
 */
#ifndef GPI_MESSAGES_H
#define GPI_MESSAGES_H

#include "render.h"

typedef enum gpi_msg_id {
    MSG_BOARD_TITLE, MSG_RECOMMEND_OWNED, MSG_RECOMMEND_BAREMETAL, MSG_RECOMMEND_CLOUD, MSG_RECOMMEND_TRAIN,
    MSG_SETUP_SERVE, MSG_CAPEX, MSG_OPEX, MSG_TCO, MSG_PER_MTOK, MSG_PER_RUN, MSG_NO_CAPEX,
    MSG_WHY_TITLE, MSG_ALT_CLOUD, MSG_ALT_BAREMETAL, MSG_ALT_OWNED, MSG_ALT_OTHER_GPU, MSG_ALT_OTHER_PRECISION,
    MSG_ALT_MORE, MSG_ALT_LESS_EXCLUDED, MSG_ALT_EXCLUDED, MSG_ALT_NONE, MSG_BREAK_EVEN, MSG_BREAK_EVEN_NEVER,
    MSG_BUY_TITLE, MSG_BUY_OWNED, MSG_BUY_RENTED,
    MSG_RISKS_TITLE, MSG_RISK_FX, MSG_RISK_DUTY, MSG_RISK_CONF, MSG_RISK_LEAD, MSG_RISK_UTIL_OWNED,
    MSG_RISK_UTIL_RENTED, MSG_RISK_FLIPS,
    MSG_POLICY_TITLE, MSG_POLICY_INTRO, MSG_POLICY_PRICE, MSG_POLICY_FREE, MSG_POLICY_NOTHING, MSG_POLICY_SPARE,
    MSG_POLICY_ALL, MSG_REDUNDANCY,
    MSG_APPENDIX, MSG_COUNTRY_BR, MSG_COUNTRY_US, MSG_WHERE_IN,
    MSG_FIT_FITS, MSG_FIT_WEIGHTS, MSG_FIT_KV, MSG_FIT_PREFILL, MSG_FIT_TRAIN_STATE, MSG_FIT_TRAIN_ACT,
    MSG_FIT_NO_LAYOUT, MSG_FIT_JOB_SERVE, MSG_FIT_JOB_TRAIN, MSG_FIT_HOW_INFER, MSG_FIT_HOW_TRAIN,
    MSG_FIT_HOLD_INFER, MSG_FIT_HOLD_TRAIN, MSG_FIT_CONTEXT_MAX, MSG_FIT_LOWER_ITEM, MSG_FIT_LOWER, MSG_FIT_UNITS,
    MSG_FIT_BAD_TP, MSG_FIT_BAD_PP, MSG_FIT_LARGER_ITEM, MSG_FIT_LARGER,
    MSG_FIT_TXT_ONE, MSG_FIT_TXT_SEVERAL, MSG_FIT_TXT_NONE, MSG_FIT_TXT_ASKED, MSG_FIT_TXT_SMALLEST, MSG_FIT_TXT_MEMORY,
    MSG_FIT_TXT_FITS, MSG_FIT_TXT_NOT_FITS, MSG_FIT_TXT_ON_SETUP,
    MSG_FIT_TXT_HEAD_INFER, MSG_FIT_TXT_HEAD_TRAIN, MSG_FIT_TXT_WEIGHTS, MSG_FIT_TXT_KV, MSG_FIT_TXT_ACT,
    MSG_FIT_TXT_GRAD, MSG_FIT_TXT_OPT, MSG_FIT_TXT_OVERHEAD, MSG_FIT_TXT_CAPACITY,
    MSG_COUNT
} gpi_msg_id;

const char *gpi_msg(gpi_msg_id id, int pt_br);
/* Fill a template: {k} -> args[k]. */
void gpi_msg_fill(char *out, size_t n, const char *tmpl, const char *const *args, int nargs);
/* Append message `id` with up to 10 string arguments (NULL-terminated list). */
void gpi_buf_msg(gpi_buf *b, int pt_br, gpi_msg_id id, ...);

/* An argument of a message in both languages: a string, or a number written by locale. */
typedef struct gpi_msg_arg {
    const char *s;      /* NULL: the number v with `decimals` digits */
    double v;
    int decimals;
} gpi_msg_arg;
#define GPI_S(x) ((gpi_msg_arg){(x), 0, 0})
#define GPI_N(x, d) ((gpi_msg_arg){NULL, (double)(x), (d)})
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
