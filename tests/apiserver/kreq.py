#!/usr/bin/python3
"""Send one request to the test API server as admin: kreq.py DIR METHOD PATH [BODY [CONTENT-TYPE]].

Prints the response body; exits 0 for 2xx, 1 otherwise (the status line goes to stderr), 3 when
the server cuts a stream.
Use --token-file FILE to send another bearer token.
"""
import http.client
import os
import ssl
import sys


def main(argv):
    token_file = None
    if len(argv) > 2 and argv[1] == "--token-file":
        token_file = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) < 4:
        sys.stderr.write("usage: kreq.py [--token-file F] DIR METHOD PATH [BODY [CONTENT-TYPE]]\n")
        return 2
    d, method, path = argv[1], argv[2], argv[3]
    body = argv[4].encode() if len(argv) > 4 else None
    ctype = argv[5] if len(argv) > 5 else "application/json"
    port = int(open(os.path.join(d, "port")).read())
    token = open(token_file or os.path.join(d, "admin.token")).read().strip()
    ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=60)
    headers = {"Authorization": "Bearer " + token, "Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = ctype
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    cut = False
    try:
        data = r.read()
    except http.client.IncompleteRead as e:  # the server cut the stream
        data, cut = e.partial, True
    sys.stdout.write(data.decode("utf-8", "replace"))
    if data and not data.endswith(b"\n"):
        sys.stdout.write("\n")
    if cut:
        sys.stderr.write("connection closed mid-stream\n")
        return 3
    if not 200 <= r.status < 300:
        sys.stderr.write("HTTP %d %s\n" % (r.status, r.reason))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
