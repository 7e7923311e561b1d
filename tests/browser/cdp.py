"""A headless Chromium driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4), with
Python's standard library alone.

Browser(path).load(url) opens a page with the network off and returns a
Page: what it logged (console calls, exceptions, log entries), the requests
it made, evaluate(js) for the DOM, and screenshot(path).
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, chromium, timeout=30.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="dra-browser-")
        cmd_r, self.cmd_w = os.pipe()
        self.ev_r, ev_w = os.pipe()

        def fds():  # the child's fd 3 reads commands, fd 4 writes answers
            a, b = os.dup(cmd_r), os.dup(ev_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-background-networking", "--disable-extensions",
             "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND",
             "--remote-debugging-pipe", "--user-data-dir=" + self.profile, "about:blank"],
            preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(ev_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.ev_r], [], [], left)[0]:
                raise BrowserError("no answer from chromium in %.0f s" % self.timeout)
            data = os.read(self.ev_r, 1 << 16)
            if not data:
                raise BrowserError("chromium exited (status %s)" % self.proc.poll())
            self.buf += data
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise BrowserError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session):
        deadline = time.monotonic() + self.timeout
        for m in self.events:
            if m.get("method") == method and m.get("sessionId") == session:
                return m
        while True:
            m = self._read(deadline)
            self.events.append(m)
            if m.get("method") == method and m.get("sessionId") == session:
                return m

    def load(self, url, width=1200, height=900):
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable", session=session)
        self.call("Network.emulateNetworkConditions",
                  {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}, session)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        start = len(self.events)
        self.call("Page.navigate", {"url": url}, session)
        self.wait_event("Page.loadEventFired", session)
        return Page(self, session, url, start)

    def close(self):
        try:
            self.call("Browser.close")
        except BrowserError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.ev_r)
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser, session, url, start):
        self.b, self.session, self.url, self.start = browser, session, url, start

    def _events(self):
        return [m for m in self.b.events[self.start:] if m.get("sessionId") == self.session]

    def problems(self):
        """Console calls, exceptions, log entries of level warning or error,
        and requests for anything but the page itself."""
        out = []
        for m in self._events():
            method, p = m.get("method"), m.get("params", {})
            if method == "Runtime.consoleAPICalled":
                out.append("console.%s: %s" % (p.get("type"), " ".join(str(a.get("value", a.get("description")))
                                                                       for a in p.get("args", []))))
            elif method == "Runtime.exceptionThrown":
                out.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") in ("warning", "error"):
                out.append("log %s: %s" % (p["entry"]["level"], p["entry"].get("text")))
            elif method == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if url != self.url and not url.startswith("data:"):
                    out.append("request: %s" % url)
            elif method == "Network.loadingFailed":
                out.append("load failed: %s" % p.get("errorText"))
        return out

    def evaluate(self, js):
        r = self.b.call("Runtime.evaluate", {"expression": js, "returnByValue": True}, self.session)
        if "exceptionDetails" in r:
            raise BrowserError("%s: %s" % (js, r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def screenshot(self, path):
        r = self.b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, self.session)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
