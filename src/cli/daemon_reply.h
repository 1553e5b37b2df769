/* daemon_reply.h: the shapes of migschedd's replies, as far as the client commands print
 * or rely on them (docs/daemon.md, HTTP API): each check names the first field that is
 * missing or of the wrong type ("jobs[3].state: ..."); and a reply printed as JSON with
 * nothing raw for the terminal. */
#ifndef MIGSCHED_CLI_DAEMON_REPLY_H
#define MIGSCHED_CLI_DAEMON_REPLY_H

#include <jansson.h>
#include <stddef.h>

#include "migsched/escape.h"

/* A job's states, as the daemon names them; NULL-terminated. */
extern const char *const cli_job_states[];

/* A job (GET /v1/jobs/{id}, the reply to POST /v1/jobs and to DELETE): id a positive
 * integer, name a string, state one of cli_job_states, attempts a non-negative integer,
 * gpu null or a GPU index with placement {"start": SLOT}, profile a string or null,
 * exit_status an integer or null, user a string (or absent). at names the job in
 * messages ("jobs[3]"; "" for a reply that is the job). Returns 0, or 1 with msg. */
int cli_reply_job(json_t *o, const char *at, char *msg, size_t len);

/* The ms_client_reply_check of a job reply. */
int cli_reply_one_job(json_t *o, char *msg, size_t len);

/* A page of GET /v1/jobs: {"jobs": [jobs], "next": "/v1/jobs?..." or null}; a reply
 * without next is the last page. */
int cli_reply_jobs_page(json_t *o, char *msg, size_t len);

/* GET /v1/gpus: {"gpus": [{"gpu", "model", "uuid", "slices", "busy_slices",
 * "fragmentation", "instances": [{"profile", "placement": {"start"}, "state", "job"}]}]}. */
int cli_reply_gpus(json_t *o, char *msg, size_t len);

/* Room for a string of a reply as printed: longer ones are cut short. */
#define CLI_REPLY_TEXT_LEN MS_ESCAPED_LEN(256)

/* o's string KEY escaped for the terminal into buf (CLI_REPLY_TEXT_LEN bytes), or dflt when
 * it is null or absent. Returns buf or dflt. */
const char *cli_reply_text(json_t *o, const char *key, const char *dflt, char *buf);

/* Prints root (taken) as indented JSON on stdout, every character of its strings outside
 * printable ASCII as a \u escape: the same JSON, with no control character in it. Returns
 * 0, or 1 after saying why not. */
int cli_reply_print_json(const char *cmd, json_t *root);

#endif
