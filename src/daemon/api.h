/* api.h: migschedd's HTTP routes, free of any HTTP library: a request (method, path, query,
 * body) in, a response (status, content type, body) out. Each handler parses, makes one
 * engine call and renders; the engine's outcomes map to status codes. Private to the
 * daemon; the routes are in docs/daemon.md ("HTTP API"). */
#ifndef MIGSCHED_DAEMON_API_H
#define MIGSCHED_DAEMON_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define MD_API_MAX_ARGS 8

/* Who sent a request: the peer's credentials on the Unix socket (SO_PEERCRED), the local
 * user a token names on TCP. authenticated false: nobody (only the public paths). */
typedef struct md_api_caller {
    bool authenticated;
    uint32_t uid, gid;
    char name[64]; /* the user's name ("" when the uid has none) */
} md_api_caller;

typedef struct md_api_request {
    md_api_caller caller;
    const char *method; /* "GET", "POST", ... */
    const char *path;   /* without the query */
    int nargs;          /* query arguments (value NULL when given without '=') */
    const char *arg_key[MD_API_MAX_ARGS], *arg_value[MD_API_MAX_ARGS];
    const char *body; /* POST: the body read so far (len bytes) */
    size_t len;
} md_api_request;

typedef struct md_api_response {
    unsigned status;
    const char *content_type;
    char *body; /* malloc'd, len bytes; the caller frees it */
    size_t len;
    const char *allow; /* 405: the methods the path takes */
    char location[64]; /* 201: the new job's path */
} md_api_response;

/* What the routes need: the engine, the GPU model jobs are parsed against, the host name
 * for the metrics' Hostname label, the count-only GRES a new allocation must fit (asked
 * of Slurm; NULL or "none": not checked). */
typedef struct md_api {
    md_engine *engine;
    const ms_gpu_model *model;
    char hostname[256];
    const char *slurm_gres;
} md_api;

/* Serves one request; never fails (an allocation failure is a 500 with a fixed body). */
void md_api_handle(const md_api *api, const md_api_request *rq, md_api_response *rs);
/* The same on the metrics-only listener (listen-metrics), for anyone: GET /metrics, 405
 * for its other methods, 404 for every other path (none is named). */
void md_api_handle_metrics_only(const md_api *api, const md_api_request *rq, md_api_response *rs);

/* rs as the JSON error {"error": msg} with status. */
void md_api_error(md_api_response *rs, unsigned status, const char *msg);

#endif
