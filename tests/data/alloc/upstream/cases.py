"""Upstream's allocator test table as data (see gen.py).  Source: the
kubernetes/dynamic-resource-allocation mirror of allocator_testing.go at
29225cff (master, mid-2026), the version dra-corrections.md was checked
against.  Case names are upstream's; comments only where our port had to
restate something."""
from gen import *  # noqa: F401,F403

N1 = node(node1, region1)
memsel = lambda q: sel('device.capacity["%s"].memory.compareTo(quantity("%s")) >= 0' % (driverA, q))
typesel = lambda t: sel('device.attributes["%s"].type == "%s"' % (driverA, t))

case("empty")
case("simple",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1))])
case("other-node",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverB), sliceWithOneDevice(slice2, node2, pool2, driverA)],
     node=node(node2, region2),
     expectResults=[allocationResult(localNodeSelector(node2), deviceAllocationResult(req0, driverA, pool2, device1))])
case("small-and-large",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1, memsel("1Gi")),
                                         request(req1, classA, 1, memsel("2Gi")))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, {"memory": "1Gi"}),
                              device(device2, {"memory": "2Gi"}))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1, driverA, pool1, device2))])
case("small-and-large-backtrack-requests",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1, memsel("1Gi")),
                                         request(req1, classA, 1, memsel("2Gi")))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device2, {"memory": "2Gi"}),
                              device(device1, {"memory": "1Gi"}))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1, driverA, pool1, device2))])
case("small-and-large-backtrack-claims",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1, memsel("1Gi"))),
                       claimWithRequests(claim1, None, request(req1, classA, 1, memsel("2Gi")))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device2, {"memory": "2Gi"}),
                              device(device1, {"memory": "1Gi"}))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1)),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req1, driverA, pool1, device2))])
case("devices-split-across-different-slices",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 2))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA), sliceWithOneDevice(slice2, node1, pool2, driverA)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req0, driverA, pool2, device1))])
case("obsolete-slice",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices("slice-1-obsolete", node1, resourcePool(pool1, 2), driverA, device(device1)),
             sliceWithDevices("slice-1-obsolete", node1, resourcePool(pool1, 2, 2), driverA, device(device2))],
     expectResults=[])
case("duplicate-slice",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1)),
             sliceWithDevices(slice1 + "-2", node1, resourcePool(pool1, 2), driverA, device(device1))],
     expectError="invalid resource pools were encountered")
case("no-slices",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)])
case("not-enough-suitable-devices",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req1, classA)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])
case("no-classes",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="could not retrieve device class class-a")
case("unknown-class",
     claimsToAllocate=[claimWithRequest(claim0, req0, "unknown-class")],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="could not retrieve device class unknown-class")
case("empty-class",
     claimsToAllocate=[claimWithRequest(claim0, req0, "")],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="claim claim-0, request req-0: missing device class name (unsupported request type?)")
case("no-claims-to-allocate",
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])
case("all-devices-single",
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1))])
case("all-devices-many",
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA), sliceWithOneDevice(slice1, node1, pool2, driverA)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req0, driverA, pool2, device1))])
case("all-devices-of-the-incomplete-pool",
     claimsToAllocate=[claim(claim0, [{"name": req0, "exactly": {"deviceClassName": classA, "allocationMode": "All",
                                                                  "count": 1}}])],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1))],
     expectError="claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated")
_allB = lambda c: claimWithRequests(c, None, request(req0, classB, 1))
case("all-devices-plus-another",
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA)), _allB(claim1)],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA), sliceWithOneDevice(slice1, node1, pool1, driverB)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1)),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1))])
case("all-devices-plus-another-reversed",
     claimsToAllocate=[_allB(claim1), claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA), sliceWithOneDevice(slice1, node1, pool1, driverB)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1)),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1))])
case("all-devices-many-plus-another",
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA)), _allB(claim1)],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2)),
             sliceWithOneDevice(slice1, node1, pool1, driverB)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req0, driverA, pool1, device2)),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1))])
case("all-devices-many-plus-another-reversed",
     claimsToAllocate=[_allB(claim1), claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2)),
             sliceWithOneDevice(slice1, node1, pool1, driverB)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1)),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req0, driverA, pool1, device2))])
case("all-devices-no-solution",
     claimsToAllocate=[claimWithRequests(claim1, None, request(req0, classA, 1)),
                       claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])
case("all-devices-no-solution-reversed",
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA)),
                       claimWithRequests(claim1, None, request(req0, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])
case("all-devices-slice-without-devices",
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithNoDevices(slice1, node1, pool1, driverA)])
case("all-devices-no-slices",
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     classes=[cls(classA, driverA)])
two_devs = lambda: sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2))
case("all-devices-some-allocated",
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     allocatedDevices=[(driverA, pool1, device1)],
     classes=[cls(classA, driverA)],
     slices=[two_devs()])
case("all-devices-some-allocated-admin-access",
     features=["AdminAccess"],
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, adminAccess=True, allocationMode="All")],
     allocatedDevices=[(driverA, pool1, device1)],
     classes=[cls(classA, driverA)],
     slices=[two_devs()],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True),
                                     deviceAllocationResult(req0, driverA, pool1, device2, True))])
case("all-devices-some-allocating-admin-access",
     features=["AdminAccess"],
     claimsToAllocate=[set_req(set_req(claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1)),
                                       0, adminAccess=True), 1, adminAccess=True, allocationMode="All")],
     classes=[cls(classA, driverA)],
     slices=[two_devs()])
case("count-devices-some-allocated-admin-access",
     features=["AdminAccess"],
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, adminAccess=True, count=2)],
     allocatedDevices=[(driverA, pool1, device1)],
     classes=[cls(classA, driverA)],
     slices=[two_devs()],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True),
                                     deviceAllocationResult(req0, driverA, pool1, device2, True))])
case("separate-claims-share-device-admin-access",
     features=["AdminAccess"],
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, adminAccess=True),
                       set_req(claimWithRequest(claim1, req0, classA), 0, adminAccess=True)],
     classes=[cls(classA, driverA)],
     slices=[two_devs()],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True)),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True))])
case("admin-access-claims-device-allocating-for-non-admin-access",
     features=["AdminAccess"],
     claimsToAllocate=[claimWithRequest(claim0, req0, classA),
                       set_req(claimWithRequest(claim1, req0, classA), 0, adminAccess=True)],
     classes=[cls(classA, driverA)],
     slices=[two_devs()],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1)),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True))])
_prioAll = lambda: set_sub(claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1),
                                                                     subRequest(subReq1, classB, 1))]),
                           0, 0, allocationMode="All", count=None)
case("all-devices-slice-without-devices-prioritized-list",
     features=["PrioritizedList"],
     claimsToAllocate=[_prioAll()],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithNoDevices(slice1, node1, pool1, driverA), sliceWithOneDevice(slice2, node1, pool2, driverB)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool2, device1))])
case("all-devices-no-slices-prioritized-list",
     features=["PrioritizedList"],
     claimsToAllocate=[_prioAll()],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithOneDevice(slice2, node1, pool2, driverB)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool2, device1))])
case("all-devices-some-allocated-prioritized-list",
     features=["PrioritizedList"],
     claimsToAllocate=[_prioAll()],
     allocatedDevices=[(driverA, pool1, device1)],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[two_devs(), sliceWithOneDevice(slice2, node1, pool2, driverB)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool2, device1))])
case("network-attached-device",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)],
     expectResults=[allocationResult(nodeLabelSelector(regionKey, region1), deviceAllocationResult(req0, driverA, pool1, device1))])
case("unsuccessful-allocation-network-attached-device",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)],
     node=node(node2, region2))
case("many-network-attached-devices",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 4))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
             sliceWithOneDevice(slice1, nodeSelectionAll, pool2, driverA),
             sliceWithOneDevice(slice1, nodeLabelSelector(planetKey, planetValueEarth), pool3, driverA),
             sliceWithOneDevice(slice1, localNodeSelector(node1), pool4, driverA)],
     expectResults=[allocationResult(
         {"nodeSelectorTerms": [{"matchExpressions": [{"key": regionKey, "operator": "In", "values": [region1]},
                                                      {"key": planetKey, "operator": "In", "values": [planetValueEarth]}],
                                 "matchFields": [{"key": fieldNameKey, "operator": "In", "values": [node1]}]}]},
         deviceAllocationResult(req0, driverA, pool1, device1), deviceAllocationResult(req0, driverA, pool2, device1),
         deviceAllocationResult(req0, driverA, pool3, device1), deviceAllocationResult(req0, driverA, pool4, device1))])
case("local-and-network-attached-devices",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 2))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
             sliceWithOneDevice(slice1, node1, pool2, driverA)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req0, driverA, pool2, device1))])
case("several-different-drivers",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req0, classB)],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[two_devs(), sliceWithOneDevice(slice1, node1, pool1, driverB)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1)),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1))])
case("already-allocated-devices",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     allocatedDevices=[(driverA, pool1, device1), (driverA, pool1, device2)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])
case("admin-access-disabled",
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, adminAccess=True)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="claim claim-0, request req-0: admin access is requested, but the feature is disabled")
case("admin-access-enabled",
     features=["AdminAccess"],
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, adminAccess=True)],
     allocatedDevices=[(driverA, pool1, device1), (driverA, pool1, device2)],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True))])
allattrs = {"driverVersion": v_("1.0.0"), "numa": i_(1), "stringAttribute": s_("stringAttributeValue"),
            "boolAttribute": b_(True)}
case("with-constraint",
     claimsToAllocate=[claimWithRequests(claim0, [match(intAttribute), match(versionAttribute), match(stringAttribute),
                                                  match(boolAttribute)],
                                         request(req0, classA, 1), request(req1, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, allattrs),
                              device(device2, None, allattrs))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1, driverA, pool1, device2))])
case("with-constraint-non-existent-attribute",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA, match(nonExistentAttribute))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])


def two_attr(name, a1, a2, extra=()):
    return sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, {name: a1}),
                            device(device2, None, {name: a2}), *extra)


case("with-constraint-not-matching-int-attribute",
     claimsToAllocate=[claimWithRequests(claim0, [match(intAttribute)], request(req0, classA, 2))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[two_attr("numa", i_(1), i_(2))])
case("with-constraint-not-matching-int-attribute-all-devices",
     claimsToAllocate=[set_req(claimWithRequests(claim0, [match(intAttribute)], request(req0, classA, 0)), 0,
                               allocationMode="All")],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[two_attr("numa", i_(1), i_(2))],
     expectError="claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied")
case("with-constraint-not-matching-string-attribute",
     claimsToAllocate=[claimWithRequests(claim0, [match(stringAttribute)], request(req0, classA, 2))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[two_attr("stringAttribute", s_("stringAttributeValue"), s_("stringAttributeValue2"))])
case("with-constraint-not-matching-bool-attribute",
     claimsToAllocate=[claimWithRequests(claim0, [match(boolAttribute)], request(req0, classA, 2))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[two_attr("boolAttribute", b_(True), b_(False))])
case("with-constraint-not-matching-version-attribute",
     claimsToAllocate=[claimWithRequests(claim0, [match(versionAttribute)], request(req0, classA, 2))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[two_attr("driverVersion", v_("1.0.0"), v_("2.0.0"))])
case("with-constraint-for-request",
     claimsToAllocate=[claimWithRequests(claim0, [match(versionAttribute, req0)], request(req0, classA, 1),
                                         request(req1, classA, 1))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[two_attr("driverVersion", v_("1.0.0"), v_("2.0.0"))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1, driverA, pool1, device2))])
case("with-constraint-for-request-retry",
     claimsToAllocate=[claimWithRequests(claim0, [match(versionAttribute, req0), match(stringAttribute)],
                                         request(req0, classA, 1), request(req1, classA, 1))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                              device(device1, None, {"driverVersion": v_("1.0.0"), "stringAttribute": s_("a")}),
                              device(device2, None, {"driverVersion": v_("2.0.0"), "stringAttribute": s_("b")}),
                              device(device3, None, {"driverVersion": v_("3.0.0"), "stringAttribute": s_("b")}))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2),
                                     deviceAllocationResult(req1, driverA, pool1, device3))])
case("with-class-device-config",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[classWithConfig(classA, driverA, "classAttribute")],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectResults=[allocationResultWithConfigs(localNodeSelector(node1), [deviceAllocationResult(req0, driverA, pool1, device1)],
                                                [allocationConfig("FromClass", None, deviceConfiguration(driverA, "classAttribute"))])])
case("with-class-device-config-with-multiple-request-and-configs",
     claimsToAllocate=[claimWithRequests(claim0, [], request(req0, classA, 1), request(req1, classA, 1), request(req2, classB, 1))],
     classes=[classWithConfig(classA, driverA, "classAttribute-A"), classWithConfig(classB, driverB, "classAttribute-B")],
     slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2), sliceWithOneDevice(slice2, node1, pool1, driverB)],
     expectResults=[allocationResultWithConfigs(
         localNodeSelector(node1),
         [deviceAllocationResult(req0, driverA, pool1, device0), deviceAllocationResult(req1, driverA, pool1, device1),
          deviceAllocationResult(req2, driverB, pool1, device1)],
         [allocationConfig("FromClass", [req0, req1], deviceConfiguration(driverA, "classAttribute-A")),
          allocationConfig("FromClass", [req2], deviceConfiguration(driverB, "classAttribute-B"))])])
case("claim-with-device-config",
     claimsToAllocate=[claimWithDeviceConfig(claim0, req0, classA, driverA, "deviceAttribute")],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectResults=[allocationResultWithConfig(localNodeSelector(node1), driverA, "FromClaim", "deviceAttribute",
                                               deviceAllocationResult(req0, driverA, pool1, device1))])
case("unknown-selector",
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, selectors=[{}])],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="CEL expression empty (unsupported selector type?)")
case("unknown-allocation-mode",
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, allocationMode="future-mode")],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="unsupported count mode future-mode")
case("unknown-constraint",
     claimsToAllocate=[with_constraints(claimWithRequest(claim0, req0, classA), {})],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="empty constraint (unsupported constraint type?)")
case("invalid-CEL-one-device",
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, selectors=[sel("noSuchVar")])],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="undeclared reference")
case("invalid-CEL-one-device-class",
     claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA, [sel("noSuchVar")])],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="undeclared reference")
case("invalid-CEL-all-devices",
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, selectors=[sel("noSuchVar")], allocationMode="All")],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="undeclared reference")
case("too-many-devices-single-request",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 500))],
     classes=[cls(classA, driverA)],
     expectError="exceeds the claim limit")
case("with-claim-config-for-two-requests",
     claimsToAllocate=[with_configs(claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1),
                                                      request(req2, classA, 1)),
                                    [deviceClaimConfig([req0, req1], deviceConfiguration(driverA, "deviceAttribute"))])],
     classes=[cls(classA, driverA)],
     slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, 3)],
     expectResults=[allocationResultWithConfigs(
         localNodeSelector(node1),
         [deviceAllocationResult(req0, driverA, pool1, device0), deviceAllocationResult(req1, driverA, pool1, device1),
          deviceAllocationResult(req2, driverA, pool1, device2)],
         [allocationConfig("FromClaim", [req0, req1], deviceConfiguration(driverA, "deviceAttribute"))])])
case("many-devices-okay",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 32))],
     classes=[cls(classA, driverA)])
case("too-many-devices-total",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 32), request(req1, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, 33)],
     expectError="exceeds the claim limit")
case("all-devices-invalid-CEL",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 500))],
     classes=[cls(classA, driverA)],
     expectError="exceeds the claim limit")
case("prioritized-list-first-unavailable",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classB, 1),
                                                                 subRequest(subReq1, classA, 1))])],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1))])
case("prioritized-list-non-available",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classB, 2),
                                                                 subRequest(subReq1, classA, 2))])],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA), sliceWithOneDevice(slice2, node1, pool2, driverB)])
case("prioritized-list-device-config",
     features=["PrioritizedList"],
     claimsToAllocate=[with_configs(claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1),
                                                                              subRequest(subReq1, classB, 2))]),
                                    [deviceClaimConfig([req0SubReq0], deviceConfiguration(driverA, "foo")),
                                     deviceClaimConfig([req0SubReq1], deviceConfiguration(driverB, "bar"))])],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverB, device(device1), device(device2))],
     expectResults=[allocationResultWithConfigs(
         localNodeSelector(node1),
         [deviceAllocationResult(req0SubReq1, driverB, pool1, device1), deviceAllocationResult(req0SubReq1, driverB, pool1, device2)],
         [allocationConfig("FromClaim", None, deviceConfiguration(driverB, "bar"))])])
case("prioritized-list-class-config",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 2),
                                                                 subRequest(subReq1, classB, 2))])],
     classes=[classWithConfig(classA, driverA, "foo"), classWithConfig(classB, driverB, "bar")],
     slices=[sliceWithDevices(slice1, node1, pool1, driverB, device(device1), device(device2)),
             sliceWithDevices(slice2, node1, pool2, driverA, device(device3))],
     expectResults=[allocationResultWithConfigs(
         localNodeSelector(node1),
         [deviceAllocationResult(req0SubReq1, driverB, pool1, device1), deviceAllocationResult(req0SubReq1, driverB, pool1, device2)],
         [allocationConfig("FromClass", None, deviceConfiguration(driverB, "bar"))])])
case("claim-config-scoped-to-subrequests-of-one-request",
     features=["PrioritizedList"],
     claimsToAllocate=[with_configs(claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1),
                                                                              subRequest(subReq1, classB, 1)),
                                                   deviceRequest(req1, classA, 1)]),
                                    [deviceClaimConfig([req0SubReq0, req0SubReq1], deviceConfiguration(driverA, "scoped"))])],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2)],
     expectResults=[allocationResultWithConfigs(
         localNodeSelector(node1),
         [deviceAllocationResult(req0SubReq0, driverA, pool1, device0), deviceAllocationResult(req1, driverA, pool1, device1)],
         [allocationConfig("FromClaim", [req0SubReq0, req0SubReq1], deviceConfiguration(driverA, "scoped"))])])
case("claim-config-covering-all-requests-is-cleared",
     features=["PrioritizedList"],
     claimsToAllocate=[with_configs(claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1),
                                                                              subRequest(subReq1, classB, 1)),
                                                   deviceRequest(req1, classA, 1)]),
                                    [deviceClaimConfig([req0SubReq0, req1], deviceConfiguration(driverA, "all"))])],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2)],
     expectResults=[allocationResultWithConfigs(
         localNodeSelector(node1),
         [deviceAllocationResult(req0SubReq0, driverA, pool1, device0), deviceAllocationResult(req1, driverA, pool1, device1)],
         [allocationConfig("FromClaim", None, deviceConfiguration(driverA, "all"))])])
mem = lambda q: {"memory": q}
case("prioritized-list-subrequests-with-expressions",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, [with_selectors(deviceRequest(req0, classA, 1), memsel("1Gi")),
                                      requestWithPrioritizedList(req1, subRequest(subReq0, classA, 1, memsel("4Gi")),
                                                                 subRequest(subReq1, classA, 2, memsel("2Gi")))])],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, mem("2Gi")), device(device2, mem("2Gi")),
                              device(device3, mem("1Gi")))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device3),
                                     deviceAllocationResult(req1SubReq1, driverA, pool1, device1),
                                     deviceAllocationResult(req1SubReq1, driverA, pool1, device2))])
_prio_cons_slices = lambda extra: [
    sliceWithDevices(slice1, node1, pool1, driverA, device(device1, mem("8Gi"), {"driverVersion": v_("1.0.0")})),
    sliceWithDevices(slice2, node1, pool2, driverA, device(device2, mem("2Gi"), {"driverVersion": v_("2.0.0")}), *extra)]
_prio_cons_reqs = lambda: [with_selectors(deviceRequest(req0, classA, 1), memsel("8Gi")),
                           requestWithPrioritizedList(req1, subRequest(subReq0, classA, 1, memsel("2Gi")),
                                                      subRequest(subReq1, classA, 1, memsel("1Gi")))]
case("prioritized-list-subrequests-with-constraints-ref-parent-request",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, _prio_cons_reqs(), [match(versionAttribute, req0, req1)])],
     classes=[cls(classA, driverA)],
     slices=_prio_cons_slices([device(device3, mem("1Gi"), {"driverVersion": v_("1.0.0")})]),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1SubReq1, driverA, pool2, device3))])
case("prioritized-list-subrequests-with-constraints-ref-sub-request",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, _prio_cons_reqs(), [match(versionAttribute, req0, req1SubReq0)])],
     classes=[cls(classA, driverA)],
     slices=_prio_cons_slices([]),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1SubReq1, driverA, pool2, device2))])
case("prioritized-list-subrequests-with-allocation-mode-all",
     features=["PrioritizedList"],
     claimsToAllocate=[set_sub(claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1),
                                                                         subRequest(subReq1, classA, 1))]),
                               0, 0, allocationMode="All", count=None)],
     classes=[cls(classA, driverA)],
     slices=[two_devs()],
     allocatedDevices=[(driverA, pool1, device1)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device2))])
case("prioritized-list-allocation-mode-all-multiple-requests",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, [deviceRequest(req0, classA, 1),
                                      requestWithPrioritizedList(req1, with_mode(subRequest(subReq0, classA, 0), "All"),
                                                                 subRequest(subReq1, classA, 1))])],
     classes=[cls(classA, driverA)],
     slices=[two_devs()],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1SubReq1, driverA, pool1, device2))])
case("prioritized-list-disabled",
     claimsToAllocate=[claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1))])],
     classes=[cls(classA, driverA)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectError="claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled")
_two_pool_mem = lambda: [sliceWithDevices(slice1, node1, pool1, driverA, device(device1, mem("8Gi"), {})),
                         sliceWithDevices(slice2, node1, pool2, driverA, device(device2, mem("4Gi"), {}))]
case("prioritized-list-multi-request",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, [with_selectors(deviceRequest(req1, classA, 1), memsel("8Gi")),
                                      requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1, memsel("8Gi")),
                                                                 subRequest(subReq1, classA, 1, memsel("4Gi")))])],
     classes=[cls(classA, driverA)],
     slices=_two_pool_mem(),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req1, driverA, pool1, device1),
                                     deviceAllocationResult(req0SubReq1, driverA, pool2, device2))])
case("prioritized-list-with-backtracking",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1, memsel("8Gi")),
                                                                 subRequest(subReq1, classA, 1, memsel("4Gi"))),
                                      with_selectors(deviceRequest(req1, classA, 1), memsel("8Gi"))])],
     classes=[cls(classA, driverA)],
     slices=_two_pool_mem(),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool2, device2),
                                     deviceAllocationResult(req1, driverA, pool1, device1))])
case("prioritized-list-too-many-in-first-subrequest",
     features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classB, 500),
                                                                 subRequest(subReq1, classA, 1))])],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1))])
case("partitionable-devices-single-device",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                              withDeviceCounterConsumption(device(device1), deviceCounterConsumption(counterSet1, mem("4Gi")))),
             sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, mem("8Gi")))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1))])
case("partitionable-devices-counter-cache-scoped-by-pool-ID",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1)),
                       claimWithRequests(claim1, None, request(req1, classB, 1))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                              withDeviceCounterConsumption(device(device1), deviceCounterConsumption(counterSet1, {"c": "1"}))),
             sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"c": "1"})),
             sliceWithDevices(slice3, node1, resourcePool(pool1, 2), driverB,
                              withDeviceCounterConsumption(device(device2), deviceCounterConsumption(counterSet1, {"c": "2"}))),
             sliceWithCounterSets(slice4, node1, resourcePool(pool1, 2), driverB, counterSet(counterSet1, {"c": "2"}))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1)),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req1, driverB, pool1, device2))])
cc = lambda cs, counters: deviceCounterConsumption(cs, counters)
case("partitionable-devices-counter-cache-not-crossed-between-driver-schemas",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1)),
                       claimWithRequests(claim1, None, request(req1, classB, 1))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                              withDeviceCounterConsumption(device(device1), cc(counterSet1, {"c": "1"}))),
             sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"c": "1"})),
             sliceWithDevices(slice3, node1, resourcePool(pool1, 2), driverB,
                              withDeviceCounterConsumption(device(device2), cc(counterSet2, {"d": "2"}))),
             sliceWithCounterSets(slice4, node1, resourcePool(pool1, 2), driverB, counterSet(counterSet2, {"d": "1"}))],
     expectResults=[])
case("partitionable-devices-taint-releases-counter",
     features=["PartitionableDevices", "DeviceTaints"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                              withDeviceCounterConsumption(withTaints(device(device1), taintNoSchedule), cc(counterSet1, {"c": "1"})),
                              withDeviceCounterConsumption(device(device2), cc(counterSet1, {"c": "1"}))),
             sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"c": "1"}))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2))])
case("partitionable-devices-constraint-releases-counter",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, [match(stringAttribute)], request(req0, classA, 2))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                              *[withDeviceCounterConsumption(device(d, None, {"stringAttribute": s_(col)}), cc(counterSet1, {"c": "1"}))
                                for d, col in ((device1, "red"), (device2, "blue"), (device3, "blue"))]),
             sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"c": "2"}))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2),
                                     deviceAllocationResult(req0, driverA, pool1, device3))])
kindsel = lambda k: sel('device.attributes["%s"].kind == "%s"' % (driverA, k))
case("partitionable-consumable-capacity-backtrack-releases-counter",
     features=["PartitionableDevices", "ConsumableCapacity"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1, kindsel("shared")),
                                         request(req1, classA, 1, kindsel("counteronly")))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                              withDeviceCounterConsumption(withAllowMultipleAllocations(device(device1, None, {"kind": s_("shared")})),
                                                           cc(counterSet1, {"c": "1"})),
                              device(device2, None, {"kind": s_("shared")}),
                              withDeviceCounterConsumption(device(device3, None, {"kind": s_("counteronly")}), cc(counterSet1, {"c": "1"}))),
             sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"c": "1"}))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2),
                                     deviceAllocationResult(req1, driverA, pool1, device3))])
strsel = lambda v: sel('device.attributes["%s"].stringAttribute == "%s"' % (driverA, v))
case("consumable-capacity-rejection-rolls-back-constraints",
     features=["ConsumableCapacity", "PrioritizedList"],
     claimsToAllocate=[claim(claim0, [with_selectors(with_capacity(deviceRequest(req0, classA, 1), two), strsel("cap"))]),
                       claim(claim1, [requestWithPrioritizedList(req0,
                                                                 with_capacity(with_mode(subRequest(subReq0, classA, 1, strsel("cap")), "All"), two),
                                                                 subRequest(subReq1, classA, 1, strsel("fb")))],
                             [match(stringAttribute)])],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                              withAllowMultipleAllocations(device(device1, {capacity0: two}, {"stringAttribute": s_("cap")})),
                              device(device2, None, {"stringAttribute": s_("fb")}))],
     expectResults=[allocationResult(localNodeSelector(node1),
                                     withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1), True, {capacity0: two})),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device2))])
case("partitionable-empty-capacity-multiple-share-backtrack-keeps-counter-ownership",
     features=["PartitionableDevices", "ConsumableCapacity"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1, kindsel("shared"))),
                       claimWithRequests(claim1, [match(stringAttribute, req1, req2)],
                                         request(req1, classA, 1, sel('device.attributes["%s"].kind == "shared" || device.attributes["%s"].kind == "fallback"' % (driverA, driverA))),
                                         request(req2, classA, 1, kindsel("gate")),
                                         request(req3, classA, 1, kindsel("shared")))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                              withDeviceCounterConsumption(withAllowMultipleAllocations(
                                  device(device1, None, {"kind": s_("shared"), "stringAttribute": s_("red")})), cc(counterSet1, {"c": "1"})),
                              device(device2, None, {"kind": s_("fallback"), "stringAttribute": s_("blue")}),
                              device(device3, None, {"kind": s_("gate"), "stringAttribute": s_("blue")})),
             sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"c": "1"}))],
     expectResults=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1))),
                    allocationResult(localNodeSelector(node1), deviceAllocationResult(req1, driverA, pool1, device2),
                                     deviceAllocationResult(req2, driverA, pool1, device3),
                                     withConsumedCapacity(deviceAllocationResult(req3, driverA, pool1, device1)))])


def fcdev(name, *consumption):
    """device(name, fromCounters, nil).withDeviceCounterConsumption(...)"""
    return withDeviceCounterConsumption(device(name, fromCounters), *consumption)


def pslices(devs, sets, count=2, pool=pool1, s1=slice1, s2=slice2):
    return [sliceWithDevices(s1, node1, resourcePool(pool, count) if count != 1 else pool, driverA, *devs),
            sliceWithCounterSets(s2, node1, resourcePool(pool, count) if count != 1 else pool, driverA, *sets)]


_prio46 = lambda: claim(claim0, [deviceRequest(req0, classA, 1),
                                 requestWithPrioritizedList(req1, subRequest(subReq0, classA, 1, memsel("6Gi")),
                                                            subRequest(subReq1, classA, 1, memsel("4Gi")))])
case("partitionable-devices-prioritized-list",
     features=["PrioritizedList", "PartitionableDevices"],
     claimsToAllocate=[_prio46()],
     classes=[cls(classA, driverA)],
     slices=pslices([fcdev(device1, cc(counterSet1, mem("4Gi"))), fcdev(device2, cc(counterSet1, mem("6Gi"))),
                     fcdev(device3, cc(counterSet1, mem("4Gi")))], [counterSet(counterSet1, mem("8Gi"))]),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1SubReq1, driverA, pool1, device3))])
case("partitionable-devices-multiple-devices",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=pslices([fcdev(device1, cc(counterSet1, mem("4Gi"))), fcdev(device2, cc(counterSet1, mem("6Gi"))),
                     fcdev(device3, cc(counterSet1, mem("4Gi")))], [counterSet(counterSet1, mem("8Gi"))]),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1, driverA, pool1, device3))])
case("partitionable-devices-multiple-capacity-pools",
     features=["PrioritizedList", "PartitionableDevices"],
     claimsToAllocate=[_prio46()],
     classes=[cls(classA, driverA)],
     slices=pslices([fcdev(device1, cc(counterSet1, mem("4Gi")), cc(counterSet2, {"cpus": "4"})),
                     fcdev(device2, cc(counterSet1, mem("6Gi")), cc(counterSet2, {"cpus": "6"})),
                     fcdev(device3, cc(counterSet1, mem("4Gi")), cc(counterSet2, {"cpus": "4"}))],
                    [counterSet(counterSet1, mem("18Gi")), counterSet(counterSet2, {"cpus": "8"})]),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1),
                                     deviceAllocationResult(req1SubReq1, driverA, pool1, device3))])
case("partitionable-devices-multiple-counters",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=pslices([fcdev(device1, cc(counterSet1, {"memory": "4Gi", "cpus": "6"}), cc(counterSet2, {"cpus": "4", "memory": "2Gi"})),
                     fcdev(device2, cc(counterSet1, {"memory": "6Gi", "cpus": "4"}), cc(counterSet2, {"cpus": "6", "memory": "6Gi"})),
                     fcdev(device3, cc(counterSet1, {"memory": "4Gi", "cpus": "4"}), cc(counterSet2, {"cpus": "4", "memory": "4Gi"}))],
                    [counterSet(counterSet1, {"cpus": "8", "memory": "18Gi"}),
                     counterSet(counterSet2, {"cpus": "12", "memory": "18Gi"})]),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2),
                                     deviceAllocationResult(req1, driverA, pool1, device3))])
case("partitionable-devices-multiple-pools",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=pslices([fcdev(device1, cc(counterSet1, {"cpus": "6", "memory": "4Gi"})),
                     fcdev(device2, cc(counterSet1, {"cpus": "4", "memory": "6Gi"})),
                     fcdev(device3, cc(counterSet1, {"cpus": "4", "memory": "4Gi"}))],
                    [counterSet(counterSet1, {"cpus": "8", "memory": "18Gi"})]) +
     pslices([fcdev(device1, cc(counterSet1, {"cpus": "6", "memory": "4Gi"})),
              fcdev(device2, cc(counterSet1, {"cpus": "1", "memory": "7Gi"})),
              fcdev(device3, cc(counterSet1, {"cpus": "1", "memory": "7Gi"}))],
             [counterSet(counterSet1, {"cpus": "8", "memory": "18Gi"})], pool=pool2, s1=slice3, s2=slice4),
     allocatedDevices=[(driverA, pool1, device2), (driverA, pool1, device3), (driverA, pool2, device1)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool2, device2),
                                     deviceAllocationResult(req1, driverA, pool2, device3))])
case("partitionable-devices-unused-counters-in-counter-set",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 2))],
     classes=[cls(classA, driverA)],
     slices=pslices([withDeviceCounterConsumption(device(device1), cc(counterSet1, mem("5Gi"))),
                     withDeviceCounterConsumption(device(device2), cc(counterSet1, mem("4Gi"))),
                     withDeviceCounterConsumption(device(device3), cc(counterSet1, mem("4Gi")))],
                    [counterSet(counterSet1, {"memory": "8Gi", "unused": "1Gi"})]),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2),
                                     deviceAllocationResult(req0, driverA, pool1, device3))])
case("partitionable-devices-no-capacity-available",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA, fcdev(device1, cc(counterSet1, mem("4Gi"))),
                              fcdev(device2, cc(counterSet1, mem("16Gi")))),
             sliceWithCounterSets(slice2, node1, pool1, driverA, counterSet(counterSet1, mem("18Gi")))],
     allocatedDevices=[(driverA, pool1, device2)])
case("partitionable-devices-overallocated-capacity-pool",
     features=["PartitionableDevices"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA, fcdev(device1, cc(counterSet1, mem("4Gi"))),
                              fcdev(device2, cc(counterSet1, mem("20Gi")))),
             sliceWithCounterSets(slice2, node1, pool1, driverA, counterSet(counterSet1, mem("18Gi")))],
     allocatedDevices=[(driverA, pool1, device2)])
case("partitionable-devices-disabled-device-consumes-counters",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                              withDeviceCounterConsumption(device(device1), cc(counterSet1, mem("4Gi")))),
             sliceWithCounterSets(slice2, node1, pool1, driverA, counterSet(counterSet1, mem("18Gi")))])
case("partitionable-devices-disabled-other-device-do-not-consume-counters",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=pslices([withDeviceCounterConsumption(device(device1), cc(counterSet1, mem("4Gi"))), device(device2)],
                    [counterSet(counterSet1, mem("18Gi"))]),
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2))])
case("partitionable-devices-disabled-per-device-node-selection",
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, nodeSelectionPerDevice, pool1, driverA, withNodeSelection(device(device2), node1))])
case("partitionable-devices-per-device-node-selection-nodename",
     features=["PartitionableDevices", "PrioritizedList"],
     claimsToAllocate=[claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1, memsel("6Gi")),
                                                                 subRequest(subReq1, classA, 1, memsel("4Gi")))])],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA,
                              withNodeSelection(fcdev(device1, cc(counterSet1, mem("4Gi"))), node1),
                              withNodeSelection(fcdev(device2, cc(counterSet1, mem("6Gi"))), node2)),
             sliceWithCounterSets(slice2, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA, counterSet(counterSet1, mem("18Gi")))],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1))])
case("partitionable-devices-per-device-node-selection-node-selector",
     features=["PartitionableDevices", "PrioritizedList"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 1))],
     classes=[cls(classA, driverA)],
     slices=[sliceWithDevices(slice1, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA,
                              withNodeSelection(fcdev(device1, cc(counterSet1, mem("4Gi"))), nodeLabelSelector(regionKey, region1))),
             sliceWithCounterSets(slice2, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA, counterSet(counterSet1, mem("18Gi")))],
     expectResults=[allocationResult(nodeLabelSelector(regionKey, region1), deviceAllocationResult(req0, driverA, pool1, device1))])
case("partitionable-devices-per-device-node-selection-node-selector-multiple-devices",
     features=["PartitionableDevices", "PrioritizedList"],
     claimsToAllocate=[claimWithRequests(claim0, None, request(req0, classA, 3), request(req1, classB, 3))],
     classes=[cls(classA, driverA), cls(classB, driverB)],
     slices=[sliceWithDevices(slice1, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA,
                              withNodeSelection(fcdev(device1, cc(counterSet1, mem("4Gi"))), nodeLabelSelector(regionKey, region1)),
                              withNodeSelection(fcdev(device2, cc(counterSet1, mem("4Gi"))), node1),
                              withNodeSelection(fcdev(device3, cc(counterSet1, mem("4Gi"))), nodeSelectionAll)),
             sliceWithCounterSets(slice2, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA, counterSet(counterSet1, mem("18Gi"))),
             sliceWithDevices(slice3, node1, resourcePool(pool2, 2), driverB,
                              *[fcdev(d, cc(counterSet2, mem("4Gi"))) for d in (device1, device2, device3)]),
             sliceWithCounterSets(slice4, node1, resourcePool(pool2, 2), driverB, counterSet(counterSet2, mem("12Gi")))],
     expectResults=[allocationResult(localNodeSelector(node1),
                                     *[deviceAllocationResult(req0, driverA, pool1, d) for d in (device1, device2, device3)],
                                     *[deviceAllocationResult(req1, driverB, pool2, d) for d in (device1, device2, device3)])])
t2 = lambda: sliceWithDevices(slice1, node1, pool1, driverA, withTaints(device(device1), taintNoSchedule),
                              withTaints(device(device2), taintNoExecute))
t1 = lambda *taints: sliceWithDevices(slice1, node1, pool1, driverA, withTaints(device(device1), *taints))
case("tainted-two-devices", features=["DeviceTaints"], claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)], slices=[t2()])
case("tainted-one-device-two-taints", features=["DeviceTaints"], claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)], slices=[t1(taintNoSchedule, taintNoExecute)])
case("tainted-two-devices-tolerated", features=["DeviceTaints"],
     claimsToAllocate=[with_tolerations(claimWithRequest(claim0, req0, classA), tolerationNoExecute)],
     classes=[cls(classA, driverA)], slices=[t2()],
     expectResults=[allocationResult(localNodeSelector(node1),
                                     deviceAllocationResult(req0, driverA, pool1, device2, False, tolerationNoExecute))])
case("tainted-two-devices-prioritized-list-tolerated", features=["DeviceTaints", "PrioritizedList"],
     claimsToAllocate=[claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1),
                                                                 subRequest(subReq1, classA, 1, tolerationNoExecute))])],
     classes=[cls(classA, driverA)], slices=[t2()],
     expectResults=[allocationResult(localNodeSelector(node1),
                                     deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False, tolerationNoExecute))])
case("tainted-no-effect", features=["DeviceTaints"], claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)], slices=[t1(taintNone)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1))])
case("tainted-one-device-two-taints-both-tolerated", features=["DeviceTaints"],
     claimsToAllocate=[with_tolerations(claimWithRequest(claim0, req0, classA), tolerationNoSchedule, tolerationNoExecute)],
     classes=[cls(classA, driverA)], slices=[t1(taintNoSchedule, taintNoExecute)],
     expectResults=[allocationResult(localNodeSelector(node1),
                                     deviceAllocationResult(req0, driverA, pool1, device1, False, tolerationNoSchedule, tolerationNoExecute))])
case("tainted-disabled", claimsToAllocate=[claimWithRequest(claim0, req0, classA)],
     classes=[cls(classA, driverA)], slices=[t1(taintNoSchedule, taintNoExecute)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1))])
_prioBA = lambda: claim(claim0, [requestWithPrioritizedList(req0, subRequest(subReq0, classB, 1), subRequest(subReq1, classA, 1))])
case("tainted-prioritized-list", features=["DeviceTaints", "PrioritizedList"], claimsToAllocate=[_prioBA()],
     classes=[cls(classA, driverA), cls(classB, driverB)], slices=[t1(taintNoSchedule)])
case("tainted-prioritized-list-disabled", features=["PrioritizedList"], claimsToAllocate=[_prioBA()],
     classes=[cls(classA, driverA), cls(classB, driverB)], slices=[t1(taintNoSchedule)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1))])
case("tainted-admin-access", features=["DeviceTaints", "AdminAccess"],
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, adminAccess=True)],
     allocatedDevices=[(driverA, pool1, device1), (driverA, pool1, device2)],
     classes=[cls(classA, driverA)], slices=[t1(taintNoSchedule)])
case("tainted-admin-access-disabled", features=["AdminAccess"],
     claimsToAllocate=[set_req(claimWithRequest(claim0, req0, classA), 0, adminAccess=True)],
     allocatedDevices=[(driverA, pool1, device1), (driverA, pool1, device2)],
     classes=[cls(classA, driverA)], slices=[t1(taintNoSchedule)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True))])
case("tainted-all-devices-single", features=["DeviceTaints"],
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     classes=[cls(classA, driverA)], slices=[t1(taintNoSchedule)])
case("tainted-all-devices-single-disabled",
     claimsToAllocate=[claimWithRequests(claim0, None, allDeviceRequest(req0, classA))],
     classes=[cls(classA, driverA)], slices=[t1(taintNoSchedule)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1))])
case("prioritized-list-allocation-mode-all", features=["PrioritizedList"],
     claimsToAllocate=[claim(claim0, [requestWithPrioritizedList(req0, with_mode(subRequest(subReq0, classA, 0), "All"),
                                                                 subRequest(subReq1, classA, 1))])],
     classes=[cls(classA, driverA)], slices=[two_devs()],
     allocatedDevices=[(driverA, pool1, device2)],
     expectResults=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1))])
