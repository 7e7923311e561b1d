/* Connecting: kubeconfig -> client -> api, and how long a watch waits. */
#include "internal.h"
#include "kube/text.h"

#include <stdlib.h>
#include <string.h>

static dra_kube_config_opts cfg_opts(const dra_session_opts *o)
{
    dra_kube_config_opts co = {.kubeconfig = o->kubeconfig,
                               .context = o->context,
                               .ns = o->ns,
                               .sa_dir = o->sa_dir,
                               .as = o->as,
                               .as_uid = o->as_uid,
                               .as_groups = o->as_groups,
                               .nas_groups = o->nas_groups,
                               .as_extra = o->as_extra,
                               .nas_extra = o->nas_extra};
    return co;
}

dra_err *dra_session_open(const dra_session_opts *o, dra_session *s)
{
    memset(s, 0, sizeof *s);
    s->o = *o;
    if (o->replay)
        return NULL; /* no server */
    dra_kube_config cfg;
    dra_kube_config_opts co = cfg_opts(o);
    dra_err *e = dra_kube_config_load(&co, &cfg);
    if (e)
        return e;
    dra_kube_client_opts ko = {0};
    ko.log = o->log;
    ko.log_ud = o->log_ud;
    ko.stop = o->stop;
    ko.backoff_cap_ms = o->backoff_cap_ms; /* 0: the client's defaults */
    ko.backoff_base_ms = o->backoff_base_ms;
    ko.user_agent = "dra-watch/" DRA_VERSION;
    ko.request_timeout_ms = o->request_timeout_ms;
    ko.fail_fast = o->one_shot;
    e = dra_kube_client_new(&cfg, &ko, &s->client);
    if (e) {
        dra_kube_config_free(&cfg);
        return e;
    }
    s->api = dra_kube_api_new(s->client);
    s->ns = o->all_namespaces ? NULL : dra_kube_client_config(s->client)->ns;
    return NULL;
}

dra_err *dra_session_reload(dra_session *s)
{
    if (!s->client)
        return NULL;
    dra_kube_config cfg;
    dra_kube_config_opts co = cfg_opts(&s->o);
    dra_err *e = dra_kube_config_load(&co, &cfg);
    if (e)
        return e;
    dra_kube_client_set_config(s->client, &cfg);
    s->ns = s->o.all_namespaces ? NULL : dra_kube_client_config(s->client)->ns;
    const dra_kube_config *c = dra_kube_client_config(s->client);
    dra_arena a = DRA_ARENA_INIT;
    dra_kube_client_log(s->client, KUBE_LOG_INFO, "reloaded %s (context %s)", dra_kube_v(&a, c->origin),
                        c->context ? dra_kube_v(&a, c->context) : "-");
    dra_arena_free(&a);
    return NULL;
}

void dra_session_close(dra_session *s)
{
    dra_kube_api_free(s->api);
    dra_kube_client_free(s->client);
    memset(s, 0, sizeof *s);
}

char *dra_watch_stats(dra_session *s)
{
    dra_kube_stats z = {0};
    dra_kube_stats *st = s->client ? dra_kube_client_stats(s->client) : &z;
    return dra_xasprintf("requests=%llu events=%llu relists=%llu resumes=%llu writes=%llu conflicts=%llu retries=%llu "
                         "reauths=%llu",
                         (unsigned long long)st->requests, (unsigned long long)st->events,
                         (unsigned long long)st->relists, (unsigned long long)st->resumes,
                         (unsigned long long)st->writes, (unsigned long long)st->conflicts,
                         (unsigned long long)st->retries, (unsigned long long)st->reauths);
}

int dra_watch_timeout_s(const dra_session *s)
{
    return s->o.watch_timeout_s > 0 ? s->o.watch_timeout_s : 300;
}

int dra_watch_idle_s(const dra_session *s)
{
    return s->o.watch_idle_s > 0 ? s->o.watch_idle_s : 60;
}
