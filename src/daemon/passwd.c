/* passwd.c: local users from the passwd database (getpwnam_r, getpwuid_r). */
#include "passwd.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One lookup (name, or uid when name is NULL) with a buffer grown until the entry fits.
 * Returns 0 and fills out, ENOENT when there is none, or the error. */
static int lookup(const char *name, uid_t uid, md_user *out)
{
    long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
    size_t size = hint > 0 ? (size_t)hint : 1024;
    for (;;) {
        char *buf = malloc(size);
        if (!buf)
            return ENOMEM;
        struct passwd pw, *found = NULL;
        int e = name ? getpwnam_r(name, &pw, buf, size, &found)
                     : getpwuid_r(uid, &pw, buf, size, &found);
        if (e == ERANGE && size < (1u << 20)) {
            free(buf);
            size *= 2;
            continue;
        }
        if (!e && !found)
            e = ENOENT;
        if (!e && strlen(pw.pw_name) >= sizeof out->name)
            e = ENAMETOOLONG;
        if (!e) {
            out->uid = pw.pw_uid;
            out->gid = pw.pw_gid;
            snprintf(out->name, sizeof out->name, "%s", pw.pw_name);
        }
        free(buf);
        return e;
    }
}

int md_user_by_name(const char *name, md_user *out, ms_error *err)
{
    /* getpwnam_r's "no such user" may be ENOENT, ESRCH, EBADF or EPERM besides 0. */
    int e = lookup(name, 0, out);
    if (e == ENOENT || e == ESRCH || e == EBADF || e == EPERM)
        return ms_error_set(err, MS_EINVAL, "no local user \"%s\"", name);
    if (e == ENAMETOOLONG)
        return ms_error_set(err, MS_EINVAL, "user name \"%s\" is over %d bytes", name,
                            MD_USER_NAME_MAX - 1);
    if (e)
        return ms_error_set(err, MS_EIO, "looking up user \"%s\": %s", name, strerror(e));
    return MS_OK;
}

bool md_user_name(uint32_t uid, char name[MD_USER_NAME_MAX])
{
    md_user u;
    bool found = !lookup(NULL, (uid_t)uid, &u);
    snprintf(name, MD_USER_NAME_MAX, "%s", found ? u.name : "");
    return found;
}
