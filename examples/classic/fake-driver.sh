#!/bin/sh
# A fake classic DRA driver's control-plane controller for
#   dra-alloc schedule --classic-driver gpu.resource.example.com=examples/classic/fake-driver.sh
# One question on stdin, one answer on stdout (see dra-alloc(1), CLASSIC DRA):
#   {"claim", "class", "parameters", "potentialNodes", "selectedNode"}
#   -> {"unsuitableNodes": [...]}  or  {"allocation": {resourceHandles, availableOnNodes, shareable}}
# The fake hardware: every node has a GPU except those in FAKE_UNSUITABLE_NODES
# (space-separated); the claim's parameters object may name more in
# spec.unsuitableNodes.  Immediate claims get a GPU usable on any node.
set -eu
q=$(cat)
exec jq -c --arg bad "${FAKE_UNSUITABLE_NODES:-}" '
  ($bad | split(" ") | map(select(. != ""))) as $env
  | ($env + ((.parameters // {}).spec.unsuitableNodes // [])) as $unsuitable
  | .claim.metadata.name as $claim
  | .class.driverName as $driver
  | .selectedNode as $sel
  | if .claim.spec.allocationMode == "Immediate" and .selectedNode == null then
      {allocation: {resourceHandles: [{driverName: $driver, data: ("gpu-for-" + $claim)}], shareable: false}}
    elif .selectedNode == null then
      {unsuitableNodes: [.potentialNodes[] | select(. as $n | $unsuitable | index($n))]}
    elif ($unsuitable | index($sel)) then
      {unsuitableNodes: [$sel]}
    else
      {allocation: {
         resourceHandles: [{driverName: $driver, data: ("gpu-on-" + $sel + "-for-" + $claim)}],
         availableOnNodes: {nodeSelectorTerms: [{matchFields: [{key: "metadata.name", operator: "In", values: [$sel]}]}]},
         shareable: false}}
    end' <<JSON
$q
JSON
