/* identity.c: users and groups from the system's databases (NSS), with the reentrant
 * calls: the HTTP server's threads ask concurrently. */
#include "identity.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A buffer for the *_r calls, grown while they ask for more (ERANGE). */
static char *nss_buffer(size_t *len)
{
    long n = sysconf(_SC_GETPW_R_SIZE_MAX), g = sysconf(_SC_GETGR_R_SIZE_MAX);
    *len = (size_t)(n > g ? n : g) > 16384 ? (size_t)(n > g ? n : g) : 16384;
    return malloc(*len);
}

/* getpwnam_r with a buffer that grows; true when found. *buf is the caller's to free. */
static bool lookup_user(const char *name, struct passwd *pw, char **buf)
{
    size_t len;
    *buf = nss_buffer(&len);
    for (;;) {
        struct passwd *res = NULL;
        int rc = *buf ? getpwnam_r(name, pw, *buf, len, &res) : ENOMEM;
        if (rc != ERANGE)
            return rc == 0 && res;
        char *more = len < (1u << 24) ? realloc(*buf, len *= 2) : NULL;
        if (!more)
            return false;
        *buf = more;
    }
}

static bool lookup_group(const char *name, struct group *gr, char **buf)
{
    size_t len;
    *buf = nss_buffer(&len);
    for (;;) {
        struct group *res = NULL;
        int rc = *buf ? getgrnam_r(name, gr, *buf, len, &res) : ENOMEM;
        if (rc != ERANGE)
            return rc == 0 && res;
        char *more = len < (1u << 24) ? realloc(*buf, len *= 2) : NULL;
        if (!more)
            return false;
        *buf = more;
    }
}

int md_identity_user(const char *name, md_job_owner *out, ms_error *err)
{
    struct passwd pw;
    char *buf;
    bool found = lookup_user(name, &pw, &buf);
    /* A name that does not fit is refused, never taken as nobody's (the caller's). */
    bool fits = found && strlen(pw.pw_name) < sizeof out->name;
    if (fits) {
        out->uid = pw.pw_uid;
        out->gid = pw.pw_gid;
        snprintf(out->name, sizeof out->name, "%s", pw.pw_name);
    }
    free(buf);
    if (!found)
        return ms_error_set(err, MS_EINVAL, "no user \"%.63s\" on this node", name);
    if (!fits)
        return ms_error_set(err, MS_EINVAL,
                            "user \"%.63s...\": names of %zu bytes or more are "
                            "not supported",
                            name, sizeof out->name);
    return MS_OK;
}

/* Whether gid is among name's groups as getgrouplist lists them (base included). */
static bool in_grouplist(const char *name, gid_t base, gid_t gid)
{
    int n = 64;
    gid_t *groups = NULL;
    for (int tries = 0; tries < 8; tries++) {
        gid_t *more = realloc(groups, (size_t)n * sizeof *groups);
        if (!more)
            break;
        groups = more;
        int want = n;
        if (getgrouplist(name, base, groups, &want) >= 0) {
            bool found = false;
            for (int i = 0; i < want && !found; i++)
                found = groups[i] == gid;
            free(groups);
            return found;
        }
        n = want > n ? want : 2 * n;
    }
    free(groups);
    return false;
}

bool md_identity_in_group(const md_job_owner *user, const char *group)
{
    if (!*group)
        return false;
    struct group gr;
    char *buf = NULL;
    bool in = false;
    /* From the user and group databases only: the gid a caller connects with is its
     * process's, which a setgid program may have lent it. */
    struct passwd pw;
    char *pbuf = NULL;
    if (*user->name && lookup_group(group, &gr, &buf) && lookup_user(user->name, &pw, &pbuf) &&
        pw.pw_uid == user->uid) {
        in = pw.pw_gid == gr.gr_gid;
        for (char **m = gr.gr_mem; !in && m && *m; m++)
            in = !strcmp(*m, user->name);
        if (!in)
            in = in_grouplist(user->name, pw.pw_gid, gr.gr_gid);
    }
    free(pbuf);
    free(buf);
    return in;
}

bool md_identity_uid_is(uint32_t uid, const char *name)
{
    if (!*name)
        return false;
    struct passwd pw;
    char *buf;
    bool is = lookup_user(name, &pw, &buf) && pw.pw_uid == uid;
    free(buf);
    return is;
}
