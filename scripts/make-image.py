#!/usr/bin/env python3
"""Build the dra-tools OCI image without a container daemon or a registry.

    scripts/make-image.py --bin DIR --version V --out DIR TOOL...

One layer holds the tools (stripped of debug information), the shared
libraries they load as ldd(1) resolves them on this machine (with the
dynamic loader), the CA certificates, a passwd/group naming the user 65532
and an empty /tmp.  Around it: the OCI config (User 65532:65532, PATH, Cmd
dra-watch --help; no Entrypoint: the manifests name the tool), the manifest,
and an OCI image layout with a Docker manifest.json beside index.json, packed
into OUT/dra-tools.oci.tar for `podman load`, `docker load` or
`skopeo copy oci-archive:...`.  OUT/layer/ is the layer unpacked (for the
tests).  The layer and the archive are reproducible: sorted entries, owner 0,
times from SOURCE_DATE_EPOCH (default: the last commit's time), gzip without
a time stamp.
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

NONROOT = 65532
LDD_LINE = re.compile(r"^\s*(?:\S+\s+=>\s+)?(/\S+)\s+\(0x[0-9a-f]+\)\s*$")


def die(msg):
    print("make-image: " + msg, file=sys.stderr)
    sys.exit(2)


def libraries(path):
    """The absolute paths ldd prints for a binary: its libraries and loader."""
    r = subprocess.run(["ldd", path], capture_output=True, text=True)
    if r.returncode != 0:
        die("ldd %s: %s" % (path, r.stderr.strip() or "failed"))
    out = []
    for line in r.stdout.splitlines():
        if "not found" in line:
            die("%s: a library is missing: %s" % (path, line.strip()))
        m = LDD_LINE.match(line)
        if m:
            out.append(m.group(1))
    return out


def copyright_of(lib):
    """The Debian copyright file of the package that ships lib, or None."""
    for p in (lib, os.path.realpath(lib)):
        r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
        if r.returncode == 0:
            pkg = r.stdout.split(":")[0].strip()
            f = "/usr/share/doc/%s/copyright" % pkg
            if os.path.isfile(f):
                return pkg, f
    return None


class Layer:
    """A tar layer built in memory from (path -> entry), written sorted."""

    def __init__(self, mtime):
        self.mtime = mtime
        self.entries = {}

    def dirs_of(self, path):
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            self.entries.setdefault(d, ("dir", 0o755, None))

    def add_file(self, path, data, mode):
        self.dirs_of(path)
        self.entries[path] = ("file", mode, data)

    def add_dir(self, path, mode):
        self.dirs_of(path + "/x")
        self.entries[path] = ("dir", mode, None)

    def tar_bytes(self):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
            for path in sorted(self.entries):
                kind, mode, data = self.entries[path]
                ti = tarfile.TarInfo(path + ("/" if kind == "dir" else ""))
                ti.mtime, ti.mode, ti.uid, ti.gid, ti.uname, ti.gname = self.mtime, mode, 0, 0, "", ""
                if kind == "dir":
                    ti.type = tarfile.DIRTYPE
                    t.addfile(ti)
                else:
                    ti.size = len(data)
                    t.addfile(ti, io.BytesIO(data))
        return buf.getvalue()


def sha(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def stripped(path, scratch):
    dst = os.path.join(scratch, os.path.basename(path))
    r = subprocess.run(["strip", "--strip-debug", "-o", dst, path], capture_output=True, text=True)
    if r.returncode != 0:
        die("strip %s: %s" % (path, r.stderr.strip()))
    with open(dst, "rb") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="dra-tools")
    ap.add_argument("--license", default="LICENSE")
    ap.add_argument("--ca", default="/etc/ssl/certs/ca-certificates.crt")
    ap.add_argument("tools", nargs="+")
    a = ap.parse_args()

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        r = subprocess.run(["git", "log", "-1", "--format=%ct"], capture_output=True, text=True)
        epoch = r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else "0"
    mtime = int(epoch)
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime))

    scratch = os.path.join(a.out, "strip")
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(scratch)
    layer = Layer(mtime)
    libs = set()
    for t in a.tools:
        p = os.path.join(a.bin, t)
        if not os.access(p, os.X_OK):
            die("%s: no such tool (run make first)" % p)
        layer.add_file("usr/local/bin/" + t, stripped(p, scratch), 0o755)
        libs.update(libraries(p))
    copyrights = {}
    for lib in sorted(libs):
        with open(lib, "rb") as f:  # the file behind the soname link
            layer.add_file(lib.lstrip("/"), f.read(), 0o755)
        c = copyright_of(lib)
        if c:
            copyrights[c[0]] = c[1]
    for pkg, f in sorted(copyrights.items()):
        with open(f, "rb") as fh:
            layer.add_file("usr/share/doc/%s/copyright" % pkg, fh.read(), 0o644)
    with open(a.license, "rb") as f:
        layer.add_file("usr/share/doc/%s/copyright" % a.name, f.read(), 0o644)
    if not os.path.isfile(a.ca):
        die("%s: no CA certificates (apt-get install ca-certificates)" % a.ca)
    with open(a.ca, "rb") as f:
        layer.add_file("etc/ssl/certs/ca-certificates.crt", f.read(), 0o644)
    layer.add_file("etc/passwd", b"root:x:0:0:root:/root:/sbin/nologin\n"
                   b"nonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n" % (NONROOT, NONROOT), 0o644)
    layer.add_file("etc/group", b"root:x:0:\nnonroot:x:%d:\n" % NONROOT, 0o644)
    layer.add_file("etc/nsswitch.conf", b"passwd: files\ngroup: files\nhosts: files dns\n", 0o644)
    layer.add_dir("tmp", 0o1777)
    layer.add_dir("home/nonroot", 0o755)
    shutil.rmtree(scratch)

    tar = layer.tar_bytes()
    gz = gzip.compress(tar, compresslevel=9, mtime=0)

    config = {
        "created": created,
        "architecture": "amd64",
        "os": "linux",
        "config": {
            "User": "%d:%d" % (NONROOT, NONROOT),
            "Env": ["PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"],
            "Cmd": ["dra-watch", "--help"],
            "WorkingDir": "/",
            "Labels": {
                "org.opencontainers.image.title": a.name,
                "org.opencontainers.image.version": a.version,
                "org.opencontainers.image.licenses": "Apache-2.0",
            },
        },
        "rootfs": {"type": "layers", "diff_ids": [sha(tar)]},
        "history": [{"created": created, "created_by": "scripts/make-image.py " + " ".join(a.tools)}],
    }
    cfg = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(cfg), "size": len(cfg)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": sha(gz), "size": len(gz)}],
        "annotations": {"org.opencontainers.image.created": created},
    }
    man = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
    ref = "%s:%s" % (a.name, a.version)
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{
            "mediaType": manifest["mediaType"], "digest": sha(man), "size": len(man),
            "platform": {"architecture": "amd64", "os": "linux"},
            "annotations": {"org.opencontainers.image.ref.name": a.version,
                            "io.containerd.image.name": "docker.io/library/" + ref},
        }],
    }
    blobs = {d["digest"]: b for d, b in ((manifest["config"], cfg), (manifest["layers"][0], gz))}
    blobs[sha(man)] = man
    docker = [{"Config": "blobs/sha256/" + sha(cfg)[7:], "RepoTags": [ref],
               "Layers": ["blobs/sha256/" + sha(gz)[7:]]}]
    files = {
        "oci-layout": json.dumps({"imageLayoutVersion": "1.0.0"}).encode(),
        "index.json": json.dumps(index, sort_keys=True, separators=(",", ":")).encode(),
        "manifest.json": json.dumps(docker, separators=(",", ":")).encode(),
    }
    for d, b in blobs.items():
        files["blobs/sha256/" + d[7:]] = b
    out = os.path.join(a.out, "%s.oci.tar" % a.name)
    with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
        for d in ("blobs", "blobs/sha256"):
            ti = tarfile.TarInfo(d + "/")
            ti.type, ti.mode, ti.mtime = tarfile.DIRTYPE, 0o755, mtime
            t.addfile(ti)
        for name in sorted(files):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mode, ti.mtime = len(files[name]), 0o644, mtime
            t.addfile(ti, io.BytesIO(files[name]))
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(os.path.join(a.out, "layer"), filter="fully_trusted")
    print("%s: %s, %d files, layer %d bytes (%d unpacked), manifest %s"
          % (out, ref, sum(1 for e in layer.entries.values() if e[0] == "file"), len(gz), len(tar), sha(man)))


if __name__ == "__main__":
    main()
