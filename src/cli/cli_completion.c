/* cli_completion.c: `migsched completion bash`, a bash completion script written from the
 * command table: the commands, their subcommands and long options, the profiles for
 * --profile and --mig, the GPU models (or a model file) for --gpu, the job states for
 * --state, and file names for the other options' values and for arguments. */
#include "cli_completion.h"

#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "daemon_reply.h"
#include "migsched/gpu.h"

#ifndef MIGSCHED_VERSION
#define MIGSCHED_VERSION "unknown"
#endif

static const char CMD[] = "completion";

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched completion bash\n"
               "  Prints a bash completion script for migsched: commands, subcommands, their\n"
               "  options, profile names after --profile and --mig, GPU models after --gpu,\n"
               "  file names elsewhere. Load it with\n"
               "    source <(migsched completion bash)\n"
               "  or install its output as /usr/share/bash-completion/completions/migsched.\n");
}

/* Every built-in model's profile names, each once. */
static void print_profiles(void)
{
    const char *seen[MS_MAX_PROFILES * 8];
    int n = 0;
    for (int i = 0; i < ms_gpu_builtin_count(); i++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(i);
        for (int p = 0; p < m->nprofiles; p++) {
            int k = 0;
            while (k < n && strcmp(seen[k], m->profiles[p].name))
                k++;
            if (k < n || n == (int)(sizeof seen / sizeof seen[0]))
                continue;
            seen[n++] = m->profiles[p].name;
            printf("%s%s", n > 1 ? " " : "", m->profiles[p].name);
        }
    }
}

/* The case branch of one command or "command subcommand": its options, and those of them
 * that take a value. */
static void print_branch(const char *key, const cli_command *c)
{
    printf("    \"%s\")\n        opts=\"", key);
    for (const struct option *o = c->options; o && o->name; o++)
        printf("%s--%s", o == c->options ? "" : " ", o->name);
    printf("\"\n        valued=\"");
    bool first = true;
    for (const struct option *o = c->options; o && o->name; o++)
        if (o->has_arg == required_argument) {
            printf("%s--%s", first ? "" : " ", o->name);
            first = false;
        }
    printf("\"\n        subs=\"");
    for (const cli_command *s = c->subcommands; s && s->name; s++)
        printf("%s%s", s == c->subcommands ? "" : " ", s->name);
    printf("\" ;;\n");
}

static void print_script(const cli_command *commands, size_t n)
{
    printf("# bash completion for migsched %s, written by `migsched completion bash` from\n"
           "# its command table.\n"
           "_migsched() {\n"
           "    local cur=${COMP_WORDS[COMP_CWORD]} prev=\n"
           "    [ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
           "    COMPREPLY=()\n"
           "    if [ \"$COMP_CWORD\" -le 1 ]; then\n"
           "        COMPREPLY=($(compgen -W \"",
           MIGSCHED_VERSION);
    for (size_t i = 0; i < n; i++)
        printf("%s ", commands[i].name);
    printf("--help --version\" -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    local key=${COMP_WORDS[1]} opts= valued= subs=\n"
           "    # A subcommand, when the command has it, picks the options.\n"
           "    case \"$key ${COMP_WORDS[2]:-}\" in\n");
    for (size_t i = 0; i < n; i++)
        for (const cli_command *s = commands[i].subcommands; s && s->name; s++)
            printf("    \"%s %s\") [ \"$COMP_CWORD\" -gt 2 ] && key=\"%s %s\" ;;\n",
                   commands[i].name, s->name, commands[i].name, s->name);
    printf("    esac\n"
           "    case \"$key\" in\n");
    char key[128];
    for (size_t i = 0; i < n; i++) {
        print_branch(commands[i].name, &commands[i]);
        for (const cli_command *s = commands[i].subcommands; s && s->name; s++) {
            snprintf(key, sizeof key, "%s %s", commands[i].name, s->name);
            print_branch(key, s);
        }
    }
    printf("    *) return ;;\n"
           "    esac\n"
           "    case \"$prev\" in\n"
           "    --profile|--mig)\n"
           "        COMPREPLY=($(compgen -W \"");
    print_profiles();
    printf("\" -- \"$cur\"))\n"
           "        return ;;\n"
           "    --gpu)\n"
           "        COMPREPLY=($(compgen -W \"");
    for (int i = 0; i < ms_gpu_builtin_count(); i++)
        printf("%s%s", i ? " " : "", ms_gpu_builtin_at(i)->name);
    printf("\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
           "        return ;;\n"
           "    --state)\n"
           "        COMPREPLY=($(compgen -W \"");
    for (const char *const *s = cli_job_states; *s; s++)
        printf("%s%s", s == cli_job_states ? "" : " ", *s);
    printf("\" -- \"$cur\"))\n"
           "        return ;;\n"
           "    --on-interrupt)\n"
           "        COMPREPLY=($(compgen -W \"retry fail\" -- \"$cur\"))\n"
           "        return ;;\n"
           "    esac\n"
           "    # Any other option's value: a file name.\n"
           "    local o\n"
           "    for o in $valued; do\n"
           "        if [ \"$prev\" = \"$o\" ]; then\n"
           "            COMPREPLY=($(compgen -f -- \"$cur\"))\n"
           "            return\n"
           "        fi\n"
           "    done\n"
           "    if [[ $cur == -* ]]; then\n"
           "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
           "    elif [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$subs\" ] && [ -z \"$opts\" ]; then\n"
           "        COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
           "    elif [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$subs\" ]; then\n"
           "        # a subcommand, or the command's own file argument\n"
           "        COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
           "    else\n"
           "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
           "    fi\n"
           "}\n"
           "complete -o filenames -F _migsched migsched\n");
}

int cli_completion(int argc, char **argv, const cli_command *commands, size_t n)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc != 2 || strcmp(argv[1], "bash"))
        return cli_usage_error(CMD, usage, "%s",
                               argc < 2 ? "which shell? (bash)" : "only bash is supported");
    print_script(commands, n);
    return 0;
}
