/* Feature gates (src/common/model/features.c). */
#include "model/features.h"
#include "unit.h"

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
    CHECK(!dra_feature_locked(DRA_FEATURE_DEVICE_TAINTS) && dra_feature_stage_of(DRA_FEATURE_DEVICE_TAINTS) == DRA_STAGE_GA);
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
    dra_err *e = dra_features_parse(&f, " DRAListTypeAttributes = true ,DRADerivedAttributes=true,,DRAConsumableCapacity=F");
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
    CHECK_STR(e ? e->msg : NULL, "invalid value of DRAAdminAccess=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax");
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
    CHECK_STR(e ? e->msg : NULL, "DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints]");
    dra_err_free(e);
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_DEVICE_TAINTS)); /* nothing applied */
    e = dra_features_parse(&f, "DRADeviceTaints=false,DRADeviceTaintRules=false");
    CHECK(e == NULL);
    dra_err_free(e);
    dra_features_default(&f);
    e = dra_features_parse(&f, "DRAWorkloadResourceClaims=true");
    CHECK_STR(e ? e->msg : NULL, "DRAWorkloadResourceClaims is enabled, but depends on features that are disabled: [GenericWorkload]");
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
    CHECK_STR(e ? e->msg : NULL, "[DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints], "
                                 "DRAFractionalCapacityRange is enabled, but depends on features that are disabled: "
                                 "[DRAConsumableCapacity]]");
    dra_err_free(e);
    /* all alpha and beta gates on satisfy every dependency */
    CHECK(dra_features_parse(&f, "AllAlpha=true,AllBeta=true") == NULL);
    CHECK(dra_feature_enabled(&f, DRA_FEATURE_GENERIC_WORKLOAD));
}

UNIT_MAIN()
