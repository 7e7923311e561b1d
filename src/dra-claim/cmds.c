/* dra-claim's command table (see cmds.h). */
#include "cmds.h"

/* clang-format off */
#define PATCH_ENTRY {OPT_PATCH, "patch", 0, DRA_ARG_OPTIONAL, "json|kubectl", "print the API operations instead of the objects", "json kubectl"}
#define VERBOSE_ENTRY DRA_OPT_INPUT_ENTRIES
#define NO_VALIDATE_ENTRY {OPT_NO_VALIDATE, "no-validate", 0, DRA_ARG_NONE, NULL, "skip API validation of the input (inspect a slightly-off dump)", NULL}

static const dra_opt generate_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), PATCH_ENTRY,
    {OPT_NAME_SUFFIX, "name-suffix", 0, DRA_ARG_REQUIRED, "MODE", "names of new claims: hash (default), random (server picks), none", "hash random none"},
    DRA_OPT_FEATURE_GATES_ENTRY, VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt reserve_opts[] = {
    {OPT_POD, "pod", 0, DRA_ARG_REQUIRED, "NS/NAME", "the pod to reserve its claims for (required)", NULL},
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), PATCH_ENTRY, DRA_OPT_FEATURE_GATES_ENTRY, VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt release_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), PATCH_ENTRY, DRA_OPT_NOW_ENTRY,
    {OPT_DELETE_ORPHANS, "delete-orphans", 0, DRA_ARG_NONE, NULL, "also delete generated claims whose pod is missing from the input (the garbage collector's job)", NULL},
    {OPT_NO_PODS_OK, "no-pods-ok", 0, DRA_ARG_NONE, NULL, "release in namespaces that have reservations but no Pods in the input", NULL},
    DRA_OPT_FEATURE_GATES_ENTRY, VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt doctor_opts[] = {
    {OPT_PATCH, "patch", 0, DRA_ARG_OPTIONAL, "json|kubectl", "print the fixes that write to claims as API operations, each on the state the ones before it leave", "json kubectl"},
    DRA_OPT_OUTPUT_ENTRY("text json jsonl"), DRA_OPT_NOW_ENTRY, DRA_OPT_FEATURE_GATES_ENTRY, NO_VALIDATE_ENTRY, VERBOSE_ENTRY,
    DRA_OPT_NAMESPACE_ENTRIES, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt convert_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt status_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("table wide yaml json jsonl"), DRA_OPT_FEATURE_GATES_ENTRY, NO_VALIDATE_ENTRY, VERBOSE_ENTRY,
    DRA_OPT_NAMESPACE_ENTRIES, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};

static const dra_cmd cmds[] = {
    {"generate", "generate [OPTIONS] [FILES]", "create claims for pods from their ResourceClaimTemplates, as the claim controller does",
     "Reads Pods, ResourceClaimTemplates and ResourceClaims; prints the new claims and the pods'\n"
     "status.resourceClaimStatuses, or with --patch the create and apply operations.\n"
     "A classic (v1alpha2) template of the input is used, converted as convert does, with a warning.\n"
     "The input's ResourceQuotas are applied to each claim created: one over quota is not created and\n"
     "its pod gets the API server's \"exceeded quota\" refusal (exit 1).",
     generate_opts, NULL},
    {"reserve", "reserve --pod NS/NAME [OPTIONS] [FILES]", "add a pod to status.reservedFor of its allocated claims",
     "Refuses, with the API server's texts, claims that are not allocated, being deleted or\n"
     "reserved 256 times; nothing is changed then (exit 1).",
     reserve_opts, NULL},
    {"release", "release [OPTIONS] [FILES]", "drop reservations of gone or finished pods, deallocate, remove finalizers, delete unused generated claims",
     "Needs the Pods of the namespaces involved: a pod missing from the input counts as gone.\n"
     "Namespaces with pod reservations but no Pods in the input are refused (exit 2).", release_opts, NULL},
    {"doctor", "doctor [OPTIONS] [FILES]", "report stuck or suspicious claims and pods, one line each with the fix; exit 1 when anything is found",
     NULL, doctor_opts, NULL},
    {"status", "status [OPTIONS] [FILES]", "claims with state, devices, node and users",
     "Classic claims (resource.k8s.io/v1alpha2) are shown too, with their PodSchedulingContext negotiation.",
     status_opts, NULL},
    {"convert", "convert [OPTIONS] [FILES]", "turn classic DRA objects (resource.k8s.io/v1alpha2) into v1 ones",
     "ResourceClass -> DeviceClass selecting its driver; ResourceClaim and ResourceClaimTemplate -> one\n"
     "request for a device of that class. What cannot be carried over (parametersRef, suitableNodes,\n"
     "Immediate allocation, status, PodSchedulingContexts) is named on stderr, per object and field;\n"
     "then the exit status is 1. Pods and objects with pod templates are printed too, their\n"
     "resourceClaims[].source.* moved onto the entry (1.31 on), each move named on stderr.\n"
     "Other objects are not printed.",
     convert_opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
const dra_tool dra_claim_tool = {"dra-claim", "ResourceClaim lifecycle: generate from templates, reserve, release, doctor, status, convert", cmds, NULL};
/* clang-format on */
