"""Python stubs for the project's proto/*.proto, generated on first use.

The stubs are generated with Debian's grpc_tools (python3-grpc-tools) into
$DRA_PEER_STUBS (or a temporary directory) and imported from there.  This is
an independent peer: it shares nothing with the C code but the .proto files.
"""
import importlib
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.normpath(os.path.join(HERE, "..", "..", "proto"))
FILES = ["dra_v1", "dra_v1beta1", "pluginregistration_v1", "dra_health_v1alpha1", "dra_health_v1"]


def _generate(out):
    os.makedirs(out, exist_ok=True)
    for f in FILES:
        src = os.path.join(PROTO, f + ".proto")
        # grpc_tools' bundled protoc predates proto3 `optional`; our files do
        # not use it (see proto/dra_v1.proto).
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I" + PROTO, "--python_out=" + out,
                        "--grpc_python_out=" + out, src], check=True)


def load():
    out = os.environ.get("DRA_PEER_STUBS")
    if not out:
        out = tempfile.mkdtemp(prefix="dra-stubs-")
        os.environ["DRA_PEER_STUBS"] = out
    if not os.path.exists(os.path.join(out, "dra_health_v1_pb2_grpc.py")):
        _generate(out)
    if out not in sys.path:
        sys.path.insert(0, out)
    return {f: (importlib.import_module(f + "_pb2"), importlib.import_module(f + "_pb2_grpc")) for f in FILES}


if __name__ == "__main__":
    load()
    print(os.environ["DRA_PEER_STUBS"])
