"""Label every ResourceSlice of the cluster, from THREADS connections at once
(the watch benchmark's burst; bench/watch-upstream.sh).

    python3 watch-writer.py CLUSTER_DIR VALUE [THREADS]

CLUSTER_DIR is tests/upstream/cluster.sh's; each thread keeps one
connection and sends merge patches {"metadata":{"labels":{"bench":VALUE}}}.
"""
import http.client
import json
import os
import ssl
import sys
import threading


def main():
    d, value = sys.argv[1], sys.argv[2]
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    host, port = open(os.path.join(d, "server")).read().strip()[len("https://"):].rsplit(":", 1)
    ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))
    ctx.load_cert_chain(os.path.join(d, "pki", "admin.crt"), os.path.join(d, "pki", "admin.key"))
    base = "/apis/resource.k8s.io/v1/resourceslices"

    def conn():
        return http.client.HTTPSConnection(host, int(port), context=ctx, timeout=60)

    c = conn()
    c.request("GET", base, headers={"Accept": "application/json"})
    names = [o["metadata"]["name"] for o in json.loads(c.getresponse().read())["items"]]
    body = json.dumps({"metadata": {"labels": {"bench": value}}})
    failed = []

    def work(part):
        c = conn()
        for n in part:
            c.request("PATCH", f"{base}/{n}", body=body,
                      headers={"Content-Type": "application/merge-patch+json", "Accept": "application/json"})
            r = c.getresponse()
            r.read()
            if r.status != 200:
                failed.append(f"{n}: HTTP {r.status}")

    ts = [threading.Thread(target=work, args=(names[i::threads],)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if failed:
        print("watch-writer: " + "; ".join(failed[:3]), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
