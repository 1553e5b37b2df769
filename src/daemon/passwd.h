/* passwd.h: local users from the passwd database (NSS included, so LDAP users count): a
 * name to its uid and primary gid, a uid to its name. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_PASSWD_H
#define MIGSCHED_DAEMON_PASSWD_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/error.h"

#define MD_USER_NAME_MAX 64 /* with the NUL; Linux names are at most 32 bytes */

typedef struct md_user {
    uint32_t uid, gid;
    char name[MD_USER_NAME_MAX];
} md_user;

/* The user called name. MS_EINVAL naming it when there is none (or its name is too long),
 * MS_EIO when the database cannot be read. */
int md_user_by_name(const char *name, md_user *out, ms_error *err);
/* The name of the user whose uid is uid into name: false (name "") when there is none or
 * the database cannot be read (a uid without a name is still a caller). */
bool md_user_name(uint32_t uid, char name[MD_USER_NAME_MAX]);

#endif
