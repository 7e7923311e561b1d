/* Reading operation lines back (cluster/ops.h dra_op_line_read): what the
 * engine tools print, and the shapes dra-watch must tell apart. */
#include "cluster/ops.h"
#include "unit.h"

static json_t *parse(const char *s)
{
    json_t *j = json_loads(s, JSON_DECODE_ANY, NULL);
    if (!j) {
        fprintf(stderr, "bad test JSON: %s\n", s);
        exit(2);
    }
    return j;
}

UNIT_TEST(reads_every_field_of_an_apply)
{
    json_t *op = parse("{\"verb\":\"apply\",\"kind\":\"ResourceClaim\",\"namespace\":\"ns\",\"name\":\"c\","
                       "\"subresource\":\"status\",\"fieldManager\":\"fm\",\"force\":true,\"body\":{\"a\":1},"
                       "\"reason\":\"why\"}");
    dra_op_line l;
    dra_op_line_read(op, &l);
    CHECK(l.verb == DRA_OPL_APPLY);
    CHECK_STR(l.verb_text, "apply");
    CHECK_STR(l.kind, "ResourceClaim");
    CHECK_STR(l.ns, "ns");
    CHECK_STR(json_string_value(l.name), "c");
    CHECK_STR(l.subresource, "status");
    CHECK_STR(l.field_manager, "fm");
    CHECK(l.force);
    CHECK(json_is_object(l.body));
    CHECK_STR(l.reason, "why");
    CHECK(l.name_var == NULL);
    json_decref(op);
}

UNIT_TEST(verbs_and_patch_types)
{
    static const struct {
        const char *json;
        dra_op_line_verb verb;
        dra_op_line_patch patch;
    } cases[] = {
        {"{\"verb\":\"create\",\"nameVar\":\"DRA_NAME_0\"}", DRA_OPL_CREATE, DRA_OPL_PATCH_JSON},
        {"{\"verb\":\"patch\"}", DRA_OPL_PATCH, DRA_OPL_PATCH_JSON},
        {"{\"verb\":\"patch\",\"patchType\":\"json\"}", DRA_OPL_PATCH, DRA_OPL_PATCH_JSON},
        {"{\"verb\":\"patch\",\"patchType\":\"merge\"}", DRA_OPL_PATCH, DRA_OPL_PATCH_MERGE},
        {"{\"verb\":\"patch\",\"patchType\":\"strategic\"}", DRA_OPL_PATCH, DRA_OPL_PATCH_STRATEGIC},
        {"{\"verb\":\"patch\",\"patchType\":\"other\"}", DRA_OPL_PATCH, DRA_OPL_PATCH_STRATEGIC},
        {"{\"verb\":\"delete\"}", DRA_OPL_DELETE, DRA_OPL_PATCH_JSON},
        {"{\"verb\":\"update\"}", DRA_OPL_UPDATE, DRA_OPL_PATCH_JSON},
        {"{\"verb\":\"replace\"}", DRA_OPL_OTHER, DRA_OPL_PATCH_JSON},
        {"{\"verb\":7}", DRA_OPL_NONE, DRA_OPL_PATCH_JSON},
        {"{}", DRA_OPL_NONE, DRA_OPL_PATCH_JSON},
        {"[1,2]", DRA_OPL_NONE, DRA_OPL_PATCH_JSON},
        {"\"create\"", DRA_OPL_NONE, DRA_OPL_PATCH_JSON},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *op = parse(cases[i].json);
        dra_op_line l;
        dra_op_line_read(op, &l);
        if (l.verb != cases[i].verb || l.patch_type != cases[i].patch)
            fprintf(stderr, "  case %s\n", cases[i].json);
        CHECK_INT(l.verb, cases[i].verb);
        CHECK_INT(l.patch_type, cases[i].patch);
        json_decref(op);
    }
    json_t *op = parse("{\"verb\":\"create\",\"nameVar\":\"DRA_NAME_0\",\"name\":\"$DRA_NAME_1\"}");
    dra_op_line l;
    dra_op_line_read(op, &l);
    CHECK_STR(l.name_var, "DRA_NAME_0");
    CHECK_STR(json_string_value(l.name), "$DRA_NAME_1");
    json_decref(op);
}

UNIT_MAIN()
