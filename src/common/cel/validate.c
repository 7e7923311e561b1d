/* Validation of whole inputs with compiled selectors.  See validate.h. */
#include "validate.h"

#include <stdlib.h>

#include "../model/load.h"
#include "dra.h"

static cel_env *validate_env(const dra_features *features)
{
    /* New or changed selectors: includes() only with DRAListTypeAttributes. */
    cel_dra_options co = {.consumable_capacity = dra_feature_enabled(features, DRA_FEATURE_CONSUMABLE_CAPACITY),
                          .new_expressions = true,
                          .list_type_attributes = dra_feature_enabled(features, DRA_FEATURE_LIST_TYPE_ATTRIBUTES),
                          .release = dra_features_release_of(features)};
    return cel_dra_env_new(&co);
}

struct cel_dra_validator {
    dra_features features;
    cel_env *env;
    dra_loader *loader;
};

cel_dra_validator *cel_dra_validator_new(const dra_features *features, dra_field_validation fv)
{
    cel_dra_validator *v = dra_xcalloc(1, sizeof *v);
    if (features)
        v->features = *features;
    else
        dra_features_default(&v->features);
    v->env = validate_env(&v->features);
    dra_load_opts lo = {.skip_unknown = true,
                        .release_fields = true, /* as the release's API server decodes */
                        .validate = {.features = &v->features,
                                     .cel = cel_dra_validate_hook,
                                     .cel_derived = cel_dra_validate_derived_hook,
                                     .cel_ctx = v->env}};
    v->loader = dra_loader_new(&lo, fv);
    return v;
}

dra_err *cel_dra_validator_add(cel_dra_validator *v, dra_obj *o)
{
    dra_kind kind;
    bool passed;
    dra_err *e = dra_loader_add(v->loader, o, &kind, &passed);
    for (dra_err *x = e; x; x = x->next)
        x->code = DRA_EXIT_INPUT;
    return e;
}

dra_err *cel_dra_validator_finish(cel_dra_validator *v, dra_model *stats)
{
    dra_err *e = dra_loader_finish(v->loader, stats);
    for (dra_err *x = e; x; x = x->next)
        x->code = DRA_EXIT_INPUT;
    cel_env_free(v->env);
    free(v);
    return e;
}

dra_err *cel_dra_validate_objects(dra_objset *set, const dra_features *features, dra_model *model)
{
    dra_features def;
    if (!features) {
        dra_features_default(&def);
        features = &def;
    }
    cel_env *env = validate_env(features);
    dra_load_opts lo = {.skip_unknown = true,
                        .release_fields = true, /* as the release's API server decodes */
                        .validate = {.features = features,
                                     .cel = cel_dra_validate_hook,
                                     .cel_derived = cel_dra_validate_derived_hook,
                                     .cel_ctx = env}};
    dra_err *e = dra_load(set, &lo, model);
    cel_env_free(env);
    for (dra_err *x = e; x; x = x->next)
        x->code = DRA_EXIT_INPUT;
    return e;
}
