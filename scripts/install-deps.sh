#!/bin/sh
# Install the Debian packages dra-tools needs to build and test, if missing.
# Safe to run repeatedly: does nothing when everything is present.
set -eu
PKGS="build-essential pkg-config libyaml-dev libjansson-dev libre2-dev libprotobuf-c-dev protobuf-c-compiler
libreadline-dev libcurl4-openssl-dev libnghttp2-dev bats bats-assert bats-support bats-file jq
python3-grpcio python3-grpc-tools clang libclang-rt-14-dev tmux openssl python3"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086 # a list of package names
$SUDO apt-get install -y -q --no-install-recommends $missing
