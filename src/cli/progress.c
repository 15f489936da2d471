/*
 * progress.c: where a long command stands, on stderr (docs/cli.md, "Progress"). The library
 * reports through the run context's callback (gp_run_ctx.progress, gp_calibrate_opts.progress);
 * this file only decides whether and when to print:
 *   - on when stderr is a terminal, or when GPUPLAN_PROGRESS=1 asks (GPUPLAN_PROGRESS=0: off);
 *     never on stdout, so --json output stays one document;
 *   - on a terminal the first line waits until the work has run CLI_PROGRESS_DELAY_S, so quick
 *     commands print nothing; when asked, from the first report;
 *   - at most one line per CLI_PROGRESS_EVERY_S (5 lines a second), then a final line
 *     ("done in 2.3 s") when any line was printed.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLI_PROGRESS_EVERY_S 0.2
#define CLI_PROGRESS_DELAY_S 1.0

void cli_progress_start(cli_progress *p, cli_common *common, const char *cmd)
{
    memset(p, 0, sizeof *p);
    p->f = common && common->err ? common->err : stderr;
    p->cmd = cmd;
    const char *env = getenv("GPUPLAN_PROGRESS");
    if (env && !strcmp(env, "1"))
        p->on = p->forced = 1;
    else if (env && !strcmp(env, "0"))
        p->on = 0;
    else
        p->on = isatty(fileno(p->f));
    p->start_s = gp_run_clock();
    p->last_s = -1;
}

void cli_progress_wire(cli_progress *p, gp_run_ctx *ctx)
{
    if (p->on) {
        ctx->progress = cli_progress_report;
        ctx->progress_arg = p;
    }
}

void cli_progress_report(void *arg, const gp_run_progress *r)
{
    cli_progress *p = arg;
    double now = gp_run_clock() - p->start_s;
    if (!p->on || (!p->forced && now < CLI_PROGRESS_DELAY_S) ||
        (p->last_s >= 0 && now - p->last_s < CLI_PROGRESS_EVERY_S))
        return;
    p->last_s = now;
    p->lines++;
    fprintf(p->f, "gpuplan %s: %s", p->cmd, r->stage && r->stage[0] ? r->stage : "working");
    if (r->item && r->item[0])
        fprintf(p->f, ": %s", r->item);
    if (r->steps > 0)
        fprintf(p->f, " (%d of %d)", r->step + 1 <= r->steps ? r->step + 1 : r->steps, r->steps);
    fprintf(p->f, ", %.1f s", now);
    if (r->work > 0)
        fprintf(p->f, ", %.3g units of work", r->work);
    fprintf(p->f, "\n");
}

void cli_progress_end(cli_progress *p, int ok)
{
    if (!p->on || p->lines == 0)
        return;
    fprintf(p->f, "gpuplan %s: %s %.1f s\n", p->cmd, ok ? "done in" : "stopped after", gp_run_clock() - p->start_s);
}
