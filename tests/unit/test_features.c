/* Feature gates (src/common/model/features.c). */
#include "model/features.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

UNIT_TEST(defaults_137)
{
    dra_feature id;
    dra_features f;
    dra_features_default(&f);
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_DYNAMIC_RESOURCE_ALLOCATION));
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_PRIORITIZED_LIST));
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_DEVICE_TAINT_RULES));
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_CONSUMABLE_CAPACITY));
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES));
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE));
    CHECK(dra_feature_enabled(NULL, DRA_FEATURE_ADMIN_ACCESS));
    CHECK(dra_feature_locked(DRA_FEATURE_PRIORITIZED_LIST));
    /* 1.37 (package features, defaultVersionedKubernetesFeatureGates):
     * GA and locked, GA unlocked, beta off, new alpha gates. */
    CHECK(dra_feature_locked(DRA_FEATURE_ADMIN_ACCESS));
    CHECK(dra_feature_locked(DRA_FEATURE_EXTENDED_RESOURCE));
    CHECK(dra_feature_locked(DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS));
    CHECK(!dra_feature_locked(DRA_FEATURE_DEVICE_TAINTS) &&
          dra_feature_stage_of(DRA_FEATURE_DEVICE_TAINTS) == DRA_STAGE_GA);
    CHECK(dra_feature_stage_of(DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE) == DRA_STAGE_BETA);
    CHECK(dra_feature_stage_of(DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS) == DRA_STAGE_BETA);
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS));
    CHECK(dra_feature_lookup("DRADerivedAttributes", &id) && id == DRA_FEATURE_DERIVED_ATTRIBUTES);
    CHECK(dra_feature_lookup("DRADeviceCompatibilityGroups", &id) && id == DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS);
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_DERIVED_ATTRIBUTES) &&
          dra_feature_stage_of(DRA_FEATURE_DERIVED_ATTRIBUTES) == DRA_STAGE_ALPHA);
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS));
    CHECK_STR(dra_feature_name(DRA_FEATURE_CONSUMABLE_CAPACITY), "DRAConsumableCapacity");
    CHECK(dra_feature_lookup("DRADeviceTaints", &id) && id == DRA_FEATURE_DEVICE_TAINTS);
    CHECK(!dra_feature_lookup("dradevicetaints", &id));
}

UNIT_TEST(parse_ok)
{
    dra_features f;
    dra_features_default(&f);
    dra_err *e =
        dra_features_parse(&f, " DRAListTypeAttributes = true ,DRADerivedAttributes=true,,DRAConsumableCapacity=F");
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES));
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_DERIVED_ATTRIBUTES));
    e = dra_features_parse(&f, "DRAAdminAccess=false");
    CHECK_STR(e ? e->msg : NULL, "cannot set feature gate DRAAdminAccess to false, feature is locked to true");
    dra_err_free(e);
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_ADMIN_ACCESS));
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_CONSUMABLE_CAPACITY));
    CHECK(dra_features_parse(&f, "DynamicResourceAllocation=true") == NULL); /* locked to its own value is fine */
    CHECK(dra_features_parse(&f, "AllAlpha=true") == NULL);
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_NODE_ALLOCATABLE_RESOURCES));
    CHECK(dra_features_parse(&f, "") == NULL);
}

UNIT_TEST(parse_errors)
{
    dra_features f;
    dra_features_default(&f);
    dra_err *e = dra_features_parse(&f, "DRANope=true");
    CHECK(e && e->code == DRA_EXIT_INPUT);
    CHECK_STR(e ? e->msg : NULL, "unrecognized feature gate: DRANope");
    dra_err_free(e);
    e = dra_features_parse(&f, "DRAAdminAccess");
    CHECK_STR(e ? e->msg : NULL, "missing bool value for DRAAdminAccess");
    dra_err_free(e);
    e = dra_features_parse(&f, "DRAAdminAccess=yes");
    CHECK_STR(e ? e->msg : NULL,
              "invalid value of DRAAdminAccess=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax");
    dra_err_free(e);
    e = dra_features_parse(&f, "DRAListTypeAttributes=true,DRAPrioritizedList=false");
    CHECK_STR(e ? e->msg : NULL, "cannot set feature gate DRAPrioritizedList to false, feature is locked to true");
    dra_err_free(e);
    /* On error nothing is applied. */
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES));
    e = dra_features_set(&f, DRA_FEATURE_DYNAMIC_RESOURCE_ALLOCATION, false);
    CHECK(e != NULL);
    dra_err_free(e);
}

/* kube_features.go's defaultKubernetesFeatureGateDependencies, checked once
 * every gate is set, in component-base's words. */
UNIT_TEST(parse_dependencies)
{
    dra_features f;
    dra_features_default(&f);
    dra_err *e = dra_features_parse(&f, "DRADeviceTaints=false");
    CHECK_STR(e ? e->msg : NULL,
              "DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints]");
    dra_err_free(e);
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_DEVICE_TAINTS)); /* nothing applied */
    e = dra_features_parse(&f, "DRADeviceTaints=false,DRADeviceTaintRules=false");
    CHECK(e == NULL);
    dra_err_free(e);
    dra_features_default(&f);
    e = dra_features_parse(&f, "DRAWorkloadResourceClaims=true");
    CHECK_STR(e ? e->msg : NULL,
              "DRAWorkloadResourceClaims is enabled, but depends on features that are disabled: [GenericWorkload]");
    dra_err_free(e);
    e = dra_features_parse(&f, "DRAWorkloadResourceClaims=true,GenericWorkload=true");
    CHECK(e == NULL);
    dra_err_free(e);
    dra_features_default(&f);
    e = dra_features_parse(&f, "DRAPartitionableDevices=false,DRAPartitionableDevicesType=true");
    CHECK_STR(e ? e->msg : NULL, "DRAPartitionableDevicesType is enabled, but depends on features that are disabled: "
                                 "[DRAPartitionableDevices DRAResourcePoolStatus]");
    dra_err_free(e);
    /* several: as utilerrors.NewAggregate prints them */
    e = dra_features_parse(&f, "DRAConsumableCapacity=false,DRAFractionalCapacityRange=true,DRADeviceTaints=false");
    CHECK_STR(e ? e->msg : NULL,
              "[DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints], "
              "DRAFractionalCapacityRange is enabled, but depends on features that are disabled: "
              "[DRAConsumableCapacity]]");
    dra_err_free(e);
    /* all alpha and beta gates on satisfy every dependency */
    CHECK(dra_features_parse(&f, "AllAlpha=true,AllBeta=true") == NULL);
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_GENERIC_WORKLOAD));
}

/* Set reads the list into a map, then unsafeSetFromMap goes through it:
 * every locked gate is an error, the first unknown one ends the walk, and
 * AllAlpha/AllBeta set only the gates not given (k8s.io/component-base
 * v0.38.0-beta.0 featuregate/feature_gate.go).  The map's order is Go's
 * random one; here it is the list's. */
UNIT_TEST(parse_as_a_map)
{
    dra_features f;
    dra_features_release(&f, DRA_RELEASE_1_38);
    dra_err *e = dra_features_parse(&f, "DRADeviceTaints=false,DRADeviceTaintRules=false");
    CHECK_STR(e ? e->msg : NULL, "[cannot set feature gate DRADeviceTaints to false, feature is locked to true, "
                                 "cannot set feature gate DRADeviceTaintRules to false, feature is locked to true]");
    dra_err_free(e);
    e = dra_features_parse(&f, "DRAAdminAccess=false,DRANope=true,DRAPrioritizedList=false");
    CHECK_STR(e ? e->msg : NULL, "[cannot set feature gate DRAAdminAccess to false, feature is locked to true, "
                                 "unrecognized feature gate: DRANope]");
    dra_err_free(e);
    /* the last value of a gate given twice */
    CHECK(dra_features_parse(&f, "DRAAdminAccess=false,DRAAdminAccess=true") == NULL);
    /* a gate given wins over AllAlpha, before or after it */
    CHECK(dra_features_parse(&f, "DRAListTypeAttributes=false,AllAlpha=true,DRADerivedAttributes=false") == NULL);
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES));
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_DERIVED_ATTRIBUTES));
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_NODE_ALLOCATABLE_RESOURCES));
    /* only an empty item is skipped */
    e = dra_features_parse(&f, "DRAAdminAccess=true, ");
    CHECK_STR(e ? e->msg : NULL, "missing bool value for ");
    dra_err_free(e);
}

/* Each release's table, kube_features.go at v1.36.3, v1.37.2, v1.38.0-beta.0. */
UNIT_TEST(releases)
{
    dra_features f;
    dra_err *e;
    dra_features_default(&f);
    CHECK(f.release == DRA_RELEASE_1_37 && dra_features_release_of(&f) == DRA_RELEASE_1_37);
    CHECK(dra_features_release_of(NULL) == DRA_RELEASE_DEFAULT);
    CHECK_STR(dra_release_name(DRA_RELEASE_1_38), "1.38");

    dra_features_release(&f, DRA_RELEASE_1_38);
    /* removed after GA: unknown, its behaviour on; then locked on in 1.38 */
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_DYNAMIC_RESOURCE_ALLOCATION));
    static const char *const refused_138[][2] = {
        {"DynamicResourceAllocation=true", "unrecognized feature gate: DynamicResourceAllocation"},
        {"DRADeviceTaints=false", "cannot set feature gate DRADeviceTaints to false, feature is locked to true"},
        {"DRAPartitionableDevices=false",
         "cannot set feature gate DRAPartitionableDevices to false, feature is locked to true"},
    };
    for (size_t i = 0; i < sizeof refused_138 / sizeof *refused_138; i++) {
        e = dra_features_parse(&f, refused_138[i][0]);
        CHECK_STR(e ? e->msg : NULL, refused_138[i][1]);
        dra_err_free(e);
    }
    CHECK(dra_gate_spec_at(DRA_RELEASE_1_38, DRA_FEATURE_DEVICE_BINDING_CONDITIONS)->locked);
    /* GA, not locked: on by default, may be turned off */
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE));
    CHECK(dra_features_parse(&f, "DRAFractionalCapacityRange=false,DRAConsumableCapacity=false") == NULL);
    CHECK(dra_gate_spec_at(DRA_RELEASE_1_38, DRA_FEATURE_CONSUMABLE_CAPACITY)->stage == DRA_STAGE_GA);
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES));

    dra_features_release(&f, DRA_RELEASE_1_36);
    CHECK(f.release == DRA_RELEASE_1_36);
    /* not yet in 1.36 */
    e = dra_features_parse(&f, "DRADerivedAttributes=true");
    CHECK_STR(e ? e->msg : NULL, "unrecognized feature gate: DRADerivedAttributes");
    dra_err_free(e);
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_DERIVED_ATTRIBUTES));
    /* beta in 1.36: may be turned off; DRAPrioritizedList GA but not locked */
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_DEVICE_TAINT_RULES));
    CHECK(dra_features_parse(
              &f, "DRAResourceClaimDeviceStatus=false,DRAPrioritizedList=false,"
                  "DRADeviceBindingConditions=false,DRAResourceClaimGranularStatusAuthorization=false") == NULL);
    /* AllAlpha touches only the gates the release has */
    CHECK(dra_features_parse(&f, "AllAlpha=true") == NULL);
    CHECK(!dra_feature_enabled(&f, DRA_FEATURE_DERIVED_ATTRIBUTES) &&
          dra_feature_enabled(&f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES));
    /* the granular status gate is known in every release */
    dra_features_default(&f);
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION));
    CHECK(dra_features_parse(&f, "DRAResourceClaimGranularStatusAuthorization=false") == NULL);
}

UNIT_TEST(release_parse)
{
    static const struct {
        const char *in;
        int want; /* 0: error */
    } cases[] = {
        {"1.36", 36},
        {"1.37", 37},
        {"1.38", 38},
        {"v1.37", 37},
        {"1.37.2", 37},
        {"v1.38.0-beta.0", 38},
        {"v1.37.2+k3s1", 37},
        {"v1.36.3-gke.100", 36},
        {"1.35", 0},
        {"1.39", 0},
        {"2.37", 0},
        {"1.37.", 0},
        {"1.37x", 0},
        {"", 0},
        {"v", 0},
        {"1.", 0},
        {"1.037", 0},
        {"1.37.2.1", 0},
        {"1.99999999999999999999", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dra_release r = 0;
        dra_err *e = dra_release_parse(cases[i].in, &r);
        if (cases[i].want) {
            CHECK(e == NULL && (int)r == cases[i].want);
        } else {
            CHECK(e != NULL && e->code == DRA_EXIT_INPUT);
            if (e)
                CHECK(strstr(e->msg, "(known: 1.36, 1.37, 1.38)") != NULL);
        }
        dra_err_free(e);
    }
    dra_err *e = dra_release_parse("1.35", &(dra_release){0});
    CHECK_STR(e ? e->msg : NULL, "unknown Kubernetes version \"1.35\" (known: 1.36, 1.37, 1.38)");
    dra_err_free(e);
}

/* The table `dra-slice gates` prints (and `make upstream-check-gates`
 * compares with kube_features.go). */
UNIT_TEST(table)
{
    dra_buf b = DRA_BUF_INIT;
    dra_features_table(&b, DRA_RELEASE_1_38);
    CHECK(strstr(dra_buf_str(&b), "1.38 DRADeviceTaintRules true GA true DRADeviceTaints\n") != NULL);
    CHECK(strstr(dra_buf_str(&b), "DynamicResourceAllocation") == NULL);
    dra_buf_free(&b);
    dra_features_table(&b, DRA_RELEASE_1_37);
    CHECK(strstr(dra_buf_str(&b), "1.37 DRAPartitionableDevicesType false alpha false "
                                  "DRAPartitionableDevices,DRAResourcePoolStatus,DynamicResourceAllocation\n") != NULL);
    CHECK(strstr(dra_buf_str(&b), "1.37 NodeDeclaredFeatures true GA true -\n") != NULL);
    dra_buf_free(&b);
}

/* The release a snapshot file records (its first object). */
UNIT_TEST(snapshot_git_version)
{
    static const struct {
        const char *text;
        const char *want; /* NULL: none */
    } cases[] = {
        {"{\"apiVersion\":\"dra-tools.io/v1alpha1\",\"kind\":\"Snapshot\",\"metadata\":{\"name\":\"snapshot\"},"
         "\"serverVersion\":{\"major\":\"1\",\"gitVersion\":\"v1.37.2\"}}\n{\"kind\":\"Pod\"}\n",
         "v1.37.2"},
        {"---\napiVersion: dra-tools.io/v1alpha1\nkind: Snapshot\nmetadata:\n  name: snapshot\nserverVersion:\n"
         "  gitVersion: v1.38.0-beta.0\n",
         "v1.38.0-beta.0"},
        {"# a comment\n[{\"apiVersion\": \"dra-tools.io/v1alpha1\", \"kind\": \"Snapshot\", \"serverVersion\": "
         "{\"gitVersion\": \"v1.36.3+k3s1\"}}]",
         "v1.36.3+k3s1"},
        /* not a snapshot first: a Node's kubelet version is not the server's */
        {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {nodeInfo: {gitVersion: v1.37.2}}\n", NULL},
        {"{\"apiVersion\":\"dra-tools.io/v1alpha1\",\"kind\":\"Snapshot\",\"serverVersion\":{}}", NULL},
        {"", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *v = dra_snapshot_git_version(cases[i].text, strlen(cases[i].text));
        if (cases[i].want)
            CHECK_STR(v, cases[i].want);
        else
            CHECK(v == NULL);
        free(v);
    }
}

UNIT_MAIN()
