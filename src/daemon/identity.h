/* identity.h: local users and groups as migschedd's authorization asks about them, looked
 * up anew on each call (a change to /etc/passwd or /etc/group, or a SIGHUP's new
 * admin-group, applies to the next request). Private to the daemon. */
#ifndef MIGSCHED_DAEMON_IDENTITY_H
#define MIGSCHED_DAEMON_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "job.h"
#include "migsched/error.h"

/* The user called name: uid, primary gid and name (getpwnam_r). MS_EINVAL naming it when
 * there is none, or when its name does not fit md_job_owner's. */
int md_identity_user(const char *name, md_job_owner *out, ms_error *err);
/* Whether the user called user->name, if it has uid user->uid, is in group by the user
 * and group databases: its passwd entry's primary gid, its supplementary groups
 * (getgrouplist) or the group's member list (never user->gid: a caller's gid is its
 * process's). false for a nameless user or a group that does not exist. */
bool md_identity_in_group(const md_job_owner *user, const char *group);
/* Whether uid is the user called name (false for "" or a user that does not exist). */
bool md_identity_uid_is(uint32_t uid, const char *name);

#endif
