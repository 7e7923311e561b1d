//go:build poolstatus_overlay

package main

import rpsr "dra-tools/tests/upstream/cmd/upstream-poolstatus/rpsr"

// The controller's own computation (export.go.in, added by the build).
var peerPoolStatus = rpsr.PeerPoolStatus
