/* Fuzz ResourceQuota reading: the loader's strict decoding and
 * ValidateResourceQuota (model/validate_quota.h), then the quota ledger
 * (insight/quota.h) over the objects that loaded: every claim admitted in
 * input order, the report and the table.  Input: any bytes, read as
 * YAML/JSON by dra_read_mem; the length's low bit picks strict or ignored
 * unknown fields, the next whether used starts from the claims. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "insight/quota.h"
#include "io/stream.h"
#include "model/features.h"
#include "model/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dra_objset set = DRA_OBJSET_INIT;
    set.field_validation = size & 1 ? DRA_FV_IGNORE : DRA_FV_STRICT;
    dra_err *e = dra_read_mem(&set, "fuzz", (const char *)data, size);
    dra_model m = DRA_MODEL_INIT;
    dra_features gates;
    dra_features_default(&gates);
    if (!e) {
        dra_load_opts opts = {.skip_unknown = true, .now = 1700000000};
        opts.validate.features = &gates;
        e = dra_load(&set, &opts, &m);
    }
    dra_quota_ledger *l = NULL;
    if (!e)
        e = dra_quota_ledger_new(&set, &m, &gates, (size >> 1) & 1, &l);
    if (!e) {
        const dra_model_list *claims = dra_model_kind(&m, DRA_KIND_RESOURCE_CLAIM);
        for (size_t i = 0; i < claims->n; i++)
            free(dra_quota_admit(l, claims->v[i]->json));
        json_t *rep = dra_quota_ledger_report(l);
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            dra_err_free(dra_quota_table(f, rep));
            fclose(f);
        }
        json_decref(rep);
    }
    for (dra_err *i = e; i; i = i->next)
        free(dra_err_format(i));
    dra_quota_ledger_free(l);
    dra_err_free(e);
    dra_model_free(&m);
    dra_objset_free(&set);
    return 0;
}
