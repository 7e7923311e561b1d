/* dra-watch's option tables (options.c) and main. */
#ifndef DRA_WATCH_MAIN_H
#define DRA_WATCH_MAIN_H

#include "tool/cli.h"
#include "watch/watch.h"

enum {
    OPT_KUBECONFIG = DRA_OPT_TOOL_BASE, OPT_CONTEXT, OPT_NAMESPACE, OPT_ALL_NS, OPT_VERBOSE, OPT_STATS,
    OPT_WATCH, OPT_SELECTOR, OPT_FIELD_SELECTOR, OPT_MAX_EVENTS, OPT_REPLAY, OPT_REPLAY_FAST,
    OPT_FOR_POD, OPT_ONCE, OPT_INTERVAL, OPT_DEBOUNCE, OPT_DRY_RUN, OPT_APPLY, OPT_JOB, OPT_MAX_PASSES,
    OPT_SOCKET, OPT_REGISTRY_DIR, OPT_PLUGINS_DIR, OPT_CHECKPOINT, OPT_AS, OPT_AS_GROUP, OPT_AS_UID,
    OPT_AS_USER_EXTRA,
};

extern const dra_tool dra_watch_tool;

/* The folder of this executable (to find dra-claim & co); caller frees; "" when unknown. */
char *dra_self_dir(void);

#endif
