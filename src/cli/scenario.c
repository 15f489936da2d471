/*
 * scenario.c: a scenario document (JSON object) -> the argv of a command, so that flags,
 * scenario files and the web API are one vocabulary (shared/design/interface.md): each key
 * is a long flag with '_' for '-' ("kv_dtype" -> --kv-dtype); numbers and strings are the
 * flag's value, true switches a flag on, false leaves it off, a list repeats the flag.
 * The command's own option parser then rejects an unknown key, naming it.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define SCENARIO_MAX_ARGS 256

static int push(char **argv, int *argc, const char *s)
{
    if (*argc >= SCENARIO_MAX_ARGS - 1)
        return -1;
    argv[*argc] = strdup(s);
    if (!argv[*argc])
        return -1;
    (*argc)++;
    argv[*argc] = NULL;
    return 0;
}

static int push_value(cli_common *common, const char *cmd, char **argv, int *argc, const char *flag, json_t *v)
{
    char buf[1024];
    if (json_is_true(v))
        return push(argv, argc, flag);
    if (json_is_false(v))
        return 0;
    if (json_is_integer(v))
        snprintf(buf, sizeof buf, "%s=%lld", flag, (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, sizeof buf, "%s=%.17g", flag, json_real_value(v));
    else if (json_is_string(v)) {
        if (strlen(json_string_value(v)) > 900) {
            cli_usage_error(common, cmd, "scenario key '%s': value too long", flag + 2);
            return -2;
        }
        snprintf(buf, sizeof buf, "%s=%s", flag, json_string_value(v));
    } else {
        cli_usage_error(common, cmd, "scenario key '%s' must be a number, a string, true/false or a list of those",
                        flag + 2);
        return -2;
    }
    return push(argv, argc, buf);
}

void cli_argv_free(int argc, char **argv)
{
    if (!argv)
        return;
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

int cli_scenario_argv(cli_common *common, const char *cmd, json_t *doc, int *argc_out, char ***argv_out)
{
    *argc_out = 0;
    *argv_out = NULL;
    if (!json_is_object(doc))
        return cli_usage_error(common, cmd, "a scenario must be a JSON object of flags (\"model\": \"llama-3.1-70b\", ...)");
    char **argv = calloc(SCENARIO_MAX_ARGS, sizeof *argv);
    int argc = 0;
    if (!argv || push(argv, &argc, cmd)) {
        free(argv);
        return cli_usage_error(common, cmd, "out of memory");
    }
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v) {
        char flag[128];
        size_t n = strlen(key);
        if (n == 0 || n > 100 || key[0] == '-') {
            cli_argv_free(argc, argv);
            return cli_usage_error(common, cmd, "scenario key '%.100s' is not a flag name", key);
        }
        snprintf(flag, sizeof flag, "--%s", key);
        for (char *p = flag + 2; *p; p++)
            if (*p == '_')
                *p = '-';
        int rc = 0;
        if (json_is_array(v)) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e)
                if (!rc)
                    rc = push_value(common, cmd, argv, &argc, flag, e);
        } else
            rc = push_value(common, cmd, argv, &argc, flag, v);
        if (rc) {
            cli_argv_free(argc, argv);
            return rc == -1 ? cli_usage_error(common, cmd, "scenario has too many keys (at most %d)", SCENARIO_MAX_ARGS - 2)
                            : EXIT_USAGE;
        }
    }
    *argc_out = argc;
    *argv_out = argv;
    return EXIT_OK;
}
