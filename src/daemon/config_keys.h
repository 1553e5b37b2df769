/* config_keys.h: the table of migschedd's configuration keys, one row each (config_value.h),
 * indexed by enum md_key. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_CONFIG_KEYS_H
#define MIGSCHED_DAEMON_CONFIG_KEYS_H

#include "config_value.h"

extern const md_key_row md_keys[MD_NKEYS];

#endif
