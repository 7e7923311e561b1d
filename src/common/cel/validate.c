/* Validation of whole inputs with compiled selectors.  See validate.h. */
#include "validate.h"

#include "../model/load.h"
#include "dra.h"

dra_err *cel_dra_validate_objects(dra_objset *set, const dra_features *features, dra_model *model)
{
    dra_features def;
    if (!features) {
        dra_features_default(&def);
        features = &def;
    }
    /* New or changed selectors: includes() only with DRAListTypeAttributes. */
    cel_dra_options co = {.consumable_capacity = dra_feature_enabled(features, DRA_FEATURE_CONSUMABLE_CAPACITY),
                          .new_expressions = true,
                          .list_type_attributes = dra_feature_enabled(features, DRA_FEATURE_LIST_TYPE_ATTRIBUTES)};
    cel_env *env = cel_dra_env_new(&co);
    dra_load_opts lo = {.skip_unknown = true,
                        .validate = {.features = features, .cel = cel_dra_validate_hook, .cel_ctx = env}};
    dra_err *e = dra_load(set, &lo, model);
    cel_env_free(env);
    for (dra_err *x = e; x; x = x->next)
        x->code = DRA_EXIT_INPUT;
    return e;
}
