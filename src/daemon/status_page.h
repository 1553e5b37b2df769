/* status_page.h: the HTML of migschedd's status page (GET /), generated at build time from
 * status_page.html (a self-contained page: inline CSS and script, no external fetches).
 * Private to the daemon. */
#ifndef MIGSCHED_DAEMON_STATUS_PAGE_H
#define MIGSCHED_DAEMON_STATUS_PAGE_H

extern const char ms_status_page_html[];

#endif
