/* passwd.h: local users from the passwd database (NSS included, so LDAP users count): a
 * name to its uid and primary gid, a uid to its name. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_PASSWD_H
#define MIGSCHED_DAEMON_PASSWD_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/error.h"

#define MS_USER_NAME_MAX 64   /* with the NUL; Linux names are at most 32 bytes */

typedef struct ms_user {
    uint32_t uid, gid;
    char name[MS_USER_NAME_MAX];
} ms_user;

/* The user called name. MS_EINVAL naming it when there is none (or its name is too long),
 * MS_EIO when the database cannot be read. */
int ms_user_by_name(const char *name, ms_user *out, ms_error *err);
/* The name of the user whose uid is uid into name: false (name "") when there is none or
 * the database cannot be read (a uid without a name is still a caller). */
bool ms_user_name(uint32_t uid, char name[MS_USER_NAME_MAX]);

#endif
