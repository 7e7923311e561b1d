#!/bin/sh
# Build the published DRA example driver's kubelet plugin
# (sigs.k8s.io/dra-example-driver, cmd/dra-example-kubeletplugin) against
# the Kubernetes release of tests/upstream/go.mod.
#
#   tests/upstream/driver/build.sh OUT_BINARY WORK_DIR
#
# The module is required by tests/upstream/go.mod (its `tool` line pins the
# version; go.sum verifies it).  v0.4.0, the newest release the module proxy
# serves, is written for Kubernetes 1.36: its cpu profile sets
# Device.NodeAllocatableResourceMappings, which k8s.io/api v0.37.2 replaced
# by NodeAllocatableResources.  So the module is copied into WORK_DIR, the
# patches of this directory are applied to the copy, and the plugin is built
# with a copy of go.mod that points the module at the patched tree.
#
# DRIVER_RELEASE=1.N builds it against that release's module file instead
# (go-1.N.mod and go-1.N.sum, tests/upstream/releases.mk; GOTOOLCHAIN and
# GOFLAGS as the caller sets them), the version of go.mod's `tool` line
# required by the copy.  1.36's API is the one v0.4.0 was written for: it
# gets only the patches that are not about 1.37's API (0001 and 0002 are).
set -eu
out=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
mod=$(cd "$here/.." && pwd)
go=${GO:-go}
release=${DRIVER_RELEASE:-}
if [ -z "$release" ]; then
	export GOTOOLCHAIN=local GOFLAGS=-mod=mod
	modfile=$mod/go.mod sumfile=$mod/go.sum
else
	modfile=$mod/go-$release.mod sumfile=$mod/go-$release.sum
	[ -f "$modfile" ] || { echo "build.sh: no $modfile for release $release" >&2; exit 2; }
fi
patches=
for p in "$here"/*.patch; do
	case $release:${p##*/} in
	1.36:0001-* | 1.36:0002-*) ;;
	*) patches="$patches $p" ;;
	esac
done

version=$(awk '$1 == "sigs.k8s.io/dra-example-driver" { print $2; exit }' "$mod/go.mod")
[ -n "$version" ] || { echo "build.sh: sigs.k8s.io/dra-example-driver is not required by $mod/go.mod" >&2; exit 2; }
src=$(cd "$mod" && "$go" mod download -json "sigs.k8s.io/dra-example-driver@$version" |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "build.sh: cannot download sigs.k8s.io/dra-example-driver@$version" >&2; exit 3; }

mkdir -p "$work"
work=$(cd "$work" && pwd)
tree=$work/dra-example-driver@$version
stamp=$tree/.patched
if [ ! -f "$stamp" ] || [ -n "$(find "$here" -name '*.patch' -newer "$stamp")" ]; then
	rm -rf "$tree"
	cp -R "$src" "$tree"
	chmod -R u+w "$tree"
	for p in $patches; do # paths without blanks (the tree's)
		patch -s -p1 -d "$tree" < "$p"
	done
	touch "$stamp"
fi

sed '/^tool /d' "$modfile" > "$work/driver.mod"
grep -q '^[[:space:]]*sigs.k8s.io/dra-example-driver ' "$work/driver.mod" ||
	printf '\nrequire sigs.k8s.io/dra-example-driver %s\n' "$version" >> "$work/driver.mod"
printf '\nreplace sigs.k8s.io/dra-example-driver => %s\n' "$tree" >> "$work/driver.mod"
cp "$sumfile" "$work/driver.sum"
mkdir -p "$(dirname "$out")"
cd "$mod"
exec "$go" build -modfile="$work/driver.mod" -o "$out" sigs.k8s.io/dra-example-driver/cmd/dra-example-kubeletplugin
