#!/usr/bin/python3
"""A stand-in Kubernetes API server for the dra-tools tests.

Python standard library only (plus the openssl command to make certificates).
It serves core/v1 pods, nodes, namespaces, events, resourcequotas (stored
only: no quota admission) and resource.k8s.io/v1
deviceclasses, resourceslices, resourceclaims, resourceclaimtemplates and
devicetaintrules, scheduling.k8s.io/v1 priorityclasses and v1beta1 podgroups
over HTTPS on 127.0.0.1 with the wire behaviour of
kube-apiserver: discovery, list with paging and selectors, watch streams with
bookmarks and 410 Expired, create/update/patch/delete with preconditions,
finalizers, RBAC-style authorization, Table output for kubectl, and a test-only
fault injection endpoint under /_test/. See README.md next to this file.
"""

import argparse
import base64
import collections
import copy
import datetime
import json
import os
import random
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kpatch  # noqa: E402
import kyaml  # noqa: E402
import kssa  # noqa: E402

def version_body(git_version):
    """/version of a server of git_version (vMAJOR.MINOR.PATCH)."""
    major, minor = git_version.lstrip("v").split(".")[:2]
    return {"major": major, "minor": minor, "emulationMajor": major, "emulationMinor": minor,
            "minCompatibilityMajor": major, "minCompatibilityMinor": str(int(minor) - 1),
            "gitVersion": git_version, "gitCommit": "0000000000000000000000000000000000000000",
            "gitTreeState": "clean", "buildDate": "2026-11-01T00:00:00Z", "goVersion": "go1.26.8",
            "compiler": "gc", "platform": "linux/amd64"}


DRA_GROUP = "resource.k8s.io"
SCHED_GROUP = "scheduling.k8s.io"
ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


# ============================================================ resources

class Res:
    def __init__(self, group, plural, kind, namespaced, short=(), status=False, fields=(),
                 generation=False, status_reset=None, categories=(), verbs=ALL_VERBS, version="v1"):
        self.group, self.plural, self.kind, self.namespaced = group, plural, kind, namespaced
        self.version = version  # the one version it is served and stored at (DRA: every version served)
        self.short, self.status, self.generation = list(short), status, generation
        self.fields = ["metadata.name"] + (["metadata.namespace"] if namespaced else []) + list(fields)
        self.status_reset = status_reset  # "drop", a dict, or None (keep)
        self.categories, self.verbs = list(categories), list(verbs)
        self.singular = kind.lower()
        self.gr = plural + ("." + group if group else "")  # "resourceclaims.resource.k8s.io"

    def api_version(self, version):
        return version if not self.group else self.group + "/" + version


POD_FIELDS = ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
              "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"]
EVENT_FIELDS = ["involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"]
FIELD_ALIASES = {"source": "source.component"}
TOP_FIELDS = ["apiVersion", "kind", "metadata", "spec"]
EVENT_FIELDS_TOP = ["apiVersion", "kind", "metadata", "involvedObject", "reason", "message", "source",
                    "firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "series", "action",
                    "related", "reportingComponent", "reportingInstance"]
META_FIELDS = ["name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
               "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
               "ownerReferences", "finalizers", "managedFields"]

CORE = [
    Res("", "pods", "Pod", True, ["po"], True, POD_FIELDS,
        status_reset={"phase": "Pending", "qosClass": "BestEffort"}, categories=["all"]),
    Res("", "nodes", "Node", False, ["no"], True, ["spec.unschedulable"]),
    Res("", "namespaces", "Namespace", False, ["ns"], True, ["status.phase"],
        status_reset={"phase": "Active"}, verbs=["create", "delete", "get", "list", "patch", "update", "watch"]),
    Res("", "events", "Event", True, ["ev"], False, EVENT_FIELDS),
    Res("", "resourcequotas", "ResourceQuota", True, ["quota"], True),
]
DRA = [
    Res(DRA_GROUP, "deviceclasses", "DeviceClass", False, generation=True),
    Res(DRA_GROUP, "resourceclaims", "ResourceClaim", True, status=True, generation=True, status_reset="drop"),
    Res(DRA_GROUP, "resourceclaimtemplates", "ResourceClaimTemplate", True, generation=True),
    Res(DRA_GROUP, "resourceslices", "ResourceSlice", False, fields=["spec.nodeName", "spec.driver"],
        generation=True),
    Res(DRA_GROUP, "devicetaintrules", "DeviceTaintRule", False, status=True, generation=True,
        status_reset="drop"),
]
# scheduling.k8s.io as 1.37 serves it: PriorityClass at v1, PodGroup at
# v1beta1 (pkg/registry/scheduling/rest/storage_scheduling.go).
SCHED = [
    Res(SCHED_GROUP, "priorityclasses", "PriorityClass", False, ["pc"]),
    Res(SCHED_GROUP, "podgroups", "PodGroup", True, status=True, generation=True, version="v1beta1"),
]
OTHER_GROUPS = {SCHED_GROUP: SCHED}
ALL_RES = CORE + DRA + SCHED
# Reviews: not stored, answered at once (kubectl auth can-i / auth whoami).
REVIEWS = {"authorization.k8s.io": ("selfsubjectaccessreviews", "SelfSubjectAccessReview"),
           "authentication.k8s.io": ("selfsubjectreviews", "SelfSubjectReview")}
BY_GR = {r.gr: r for r in ALL_RES}
BY_KIND = {(r.group, r.kind): r for r in ALL_RES}
BY_GR_REVIEW = Res("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", False)


# ============================================================ helpers

def jcopy(v):
    """Deep copy of a JSON value (much faster than copy.deepcopy)."""
    if isinstance(v, dict):
        return {k: jcopy(x) if isinstance(x, (dict, list)) else x for k, x in v.items()}
    if isinstance(v, list):
        return [jcopy(x) if isinstance(x, (dict, list)) else x for x in v]
    return v


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


class Clock:
    def __init__(self, fixed=None):
        self.fixed = fixed

    def now(self):
        return self.fixed if self.fixed is not None else time.time()

    def stamp(self, t=None):
        t = self.now() if t is None else t
        return datetime.datetime.fromtimestamp(int(t), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_stamp(s):
    try:
        return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp()
    except (TypeError, ValueError):
        return None


def human_duration(sec):
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration."""
    s = int(sec)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return "%ds" % s
    m = s // 60
    if m < 10:
        return "%dm%ds" % (m, s % 60) if s % 60 else "%dm" % m
    if m < 180:
        return "%dm" % m
    h = s // 3600
    if h < 8:
        return "%dh%dm" % (h, m % 60) if m % 60 else "%dh" % h
    if h < 48:
        return "%dh" % h
    if h < 24 * 8:
        return "%dd%dh" % (h // 24, h % 24) if h % 24 else "%dd" % (h // 24)
    if h < 24 * 365 * 2:
        return "%dd" % (h // 24)
    if h < 24 * 365 * 8:
        dy = (h // 24) % 365
        return "%dy%dd" % (h // 24 // 365, dy) if dy else "%dy" % (h // 24 // 365)
    return "%dy" % (h // 24 // 365)


def ordered(obj):
    """kind, apiVersion, metadata first, as the API server serializes."""
    out = {}
    for k in ("kind", "apiVersion", "metadata"):
        if k in obj:
            out[k] = obj[k]
    for k, v in obj.items():
        if k not in out and k != "status":
            out[k] = v
    if "status" in obj:
        out["status"] = obj["status"]
    md = out.get("metadata")
    if isinstance(md, dict):
        order = ["name", "generateName", "namespace", "uid", "resourceVersion", "generation",
                 "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                 "annotations", "ownerReferences", "finalizers", "managedFields"]
        m2 = {k: md[k] for k in order if k in md}
        m2.update({k: v for k, v in md.items() if k not in m2})
        out["metadata"] = m2
    return out


DNS1123_SUB = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
SUB_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
           "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
           "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
             "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
             "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def name_error(res, name):
    if res.plural == "namespaces":
        if len(name) > 63:
            return "must be no more than 63 characters"
        return None if DNS1123_LABEL.match(name) else LABEL_MSG
    if len(name) > 253:
        return "must be no more than 253 characters"
    return None if DNS1123_SUB.match(name) else SUB_MSG


# ============================================================ errors (metav1.Status)

class ApiError(Exception):
    def __init__(self, code, reason, message, details=None, headers=None):
        super().__init__(message)
        self.code, self.reason, self.message = code, reason, message
        self.details, self.headers = details, headers or {}

    def status(self):
        md = {"continue": self.list_continue} if getattr(self, "list_continue", None) else {}
        st = {"kind": "Status", "apiVersion": "v1", "metadata": md, "status": "Failure",
              "message": self.message, "reason": self.reason}
        if self.details is not None:
            st["details"] = self.details
        st["code"] = self.code
        return st


def _qr(res):
    return res.gr


def _details(res, name=None, **kw):
    d = {}
    if name is not None:
        d["name"] = name
    if res.group:
        d["group"] = res.group
    d["kind"] = res.plural
    d.update(kw)
    return d


def not_found(res, name):
    return ApiError(404, "NotFound", '%s "%s" not found' % (_qr(res), name), _details(res, name))


def already_exists(res, name):
    return ApiError(409, "AlreadyExists", '%s "%s" already exists' % (_qr(res), name), _details(res, name))


def conflict(res, name, why):
    return ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": %s' % (_qr(res), name, why),
                    _details(res, name))


MODIFIED_MSG = "the object has been modified; please apply your changes to the latest version and try again"


def invalid(res, name, causes):
    """causes: [(field, type, text)] -> 422 Invalid as field.ErrorList."""
    msgs = ["%s: %s" % (f, t) for f, _, t in causes]
    msg = '%s.%s "%s" is invalid: ' % (res.kind, res.group, name) if res.group else '%s "%s" is invalid: ' % (res.kind, name)
    msg += msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"
    det = {"name": name}
    if res.group:
        det["group"] = res.group
    det["kind"] = res.kind
    det["causes"] = [{"reason": ty, "message": t, "field": f} for f, ty, t in causes]
    return ApiError(422, "Invalid", msg, det)


def bad_request(msg):
    return ApiError(400, "BadRequest", msg)


def expired(msg):
    return ApiError(410, "Expired", msg)


def too_large(rv, current):
    """k8s.io/apiserver/pkg/storage.NewTooLargeResourceVersionError: 504 Timeout with a cause."""
    return ApiError(504, "Timeout", "Timeout: Too large resource version: %d, current: %d" % (rv, current),
                    {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                     "retryAfterSeconds": 1})


# How long a watch from a future resourceVersion waits for it before failing (the watch
# cache waits up to 3 s).
TOO_LARGE_WAIT = 1.0


NOT_FOUND_PATH = ApiError(404, "NotFound", "the server could not find the requested resource", {})
METHOD_NOT_ALLOWED = ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {})
CONTINUE_EXPIRED = ("The provided continue parameter is too old to display a consistent list result. You can start "
                    "a new list without the continue parameter, or use the continue token in this response to "
                    "retrieve the remainder of the results. Continuing with the provided token results in an "
                    "inconsistent list - objects that were created, modified, or deleted between the time the "
                    "first chunk was returned and now may show up in the list.")


# ============================================================ the store

Event = collections.namedtuple("Event", "rv type gr key obj data prev")


class Store:
    """Objects by group-resource and (namespace, name), a global resourceVersion
    counter as etcd's revision, and a bounded event log for watches."""

    def __init__(self, history, clock):
        self.cond = threading.Condition()
        self.rv = 1
        self.objs = {r.gr: {} for r in ALL_RES}  # gr -> {(ns, name): (obj, data)}
        self.log = collections.deque()
        self.compacted = 1  # watches and snapshots from an older version get 410
        self.history = history
        self.clock = clock
        self.stopping = False
        self.expire_gen = 0  # bumped to end open watches with 410
        self.restart_gen = 0  # bumped to cut open watches, as a restarted server does

    # All callers hold self.cond.
    def commit(self, res, key, etype, obj, prev):
        """Store obj (None to delete) under a new resourceVersion and log the event."""
        self.rv += 1
        rv = self.rv
        if etype == "DELETED":
            last = copy.copy(prev)
            last["metadata"] = dict(prev["metadata"], resourceVersion=str(rv))
            data = dumps(last)
            del self.objs[res.gr][key]
            ev = Event(rv, etype, res.gr, key, last, data, prev)
            out = last
        else:
            obj["metadata"]["resourceVersion"] = str(rv)
            if res.status_reset == "drop":
                # Go serializes the status struct even when empty, and drops empty
                # omitempty lists inside it.
                st = obj.get("status")
                st = {k: v for k, v in st.items() if v != [] and v is not None} if isinstance(st, dict) else {}
                obj["status"] = st
            obj = ordered(obj)
            data = dumps(obj)
            self.objs[res.gr][key] = (obj, data)
            ev = Event(rv, etype, res.gr, key, obj, data, prev)
            out = obj
        self.log.append(ev)
        while len(self.log) > self.history:
            self.compacted = self.log.popleft().rv
        self.cond.notify_all()
        return out

    def compact(self, upto):
        """Forget events at or before upto: versions older than upto expire."""
        upto = min(int(upto), self.rv)
        while self.log and self.log[0].rv <= upto:
            self.log.popleft()
        self.compacted = max(self.compacted, upto)
        self.cond.notify_all()

    def snapshot(self, gr, rv):
        """{key: (obj, data)} of gr as it was at rv (rv >= compacted)."""
        cur = dict(self.objs[gr])
        if rv >= self.rv:
            return cur
        for ev in reversed(self.log):
            if ev.rv <= rv:
                break
            if ev.gr != gr:
                continue
            if ev.type == "ADDED":
                cur.pop(ev.key, None)
            else:
                cur[ev.key] = (ev.prev, dumps(ev.prev))
        return cur

    def restore(self, rv):
        """etcd restored from a backup taken at rv: the objects as they were then, the
        revision counter back at rv (later versions are handed out again), the events
        after it forgotten, open watches cut as by a restart."""
        rv = int(rv)
        if rv < self.compacted or rv > self.rv:
            raise bad_request("restore: resourceVersion %d is outside the history [%d, %d]" % (rv, self.compacted, self.rv))
        for gr in self.objs:
            self.objs[gr] = self.snapshot(gr, rv)
        while self.log and self.log[-1].rv > rv:
            self.log.pop()
        self.rv = rv
        self.restart_gen += 1
        self.cond.notify_all()

    def events_after(self, rv, maxn=2000):
        """Events with resourceVersion > rv, or None if rv is compacted away."""
        if rv < self.compacted:
            return None
        if not self.log or self.log[-1].rv <= rv:
            return []
        first = self.log[0].rv
        i = max(0, rv + 1 - first)
        return [self.log[j] for j in range(i, min(len(self.log), i + maxn))]


# ============================================================ authentication and authorization

class User:
    def __init__(self, name, groups=()):
        self.name = name
        self.groups = list(groups) + ["system:authenticated"]

    @property
    def admin(self):
        return "system:masters" in self.groups


class Auth:
    def __init__(self, admin_token):
        self.tokens = {admin_token: User("admin", ["system:masters"])}
        self.admin_token = admin_token
        self.passwords = {}
        self.rbac = False
        self.bindings = []  # (subject kind, subject name, namespace or None, [rules])
        self.roles = {}  # ("ClusterRole", name) / ("Role", ns, name) -> rules
        self.cert_users = []  # (name, groups) to issue client certificates for

    def load(self, docs):
        self.rbac = True
        pending = []
        for d in docs:
            kind = d.get("kind")
            md = d.get("metadata") or {}
            if kind == "TestUsers":
                for u in d.get("users") or []:
                    name = u["name"]
                    groups = list(u.get("groups") or [])
                    if name.startswith("system:serviceaccount:"):
                        ns = name.split(":")[2]
                        groups += ["system:serviceaccounts", "system:serviceaccounts:" + ns]
                    for t in ([u["token"]] if u.get("token") else []) + list(u.get("tokens") or []):
                        self.tokens[t] = User(name, groups)
                    if u.get("password"):
                        self.passwords[name] = (u["password"], groups)
                    if u.get("clientCert"):
                        self.cert_users.append((name, groups))
                    if u.get("rules"):
                        self.bindings.append(("User", name, None, u["rules"]))
            elif kind == "ClusterRole":
                self.roles[("ClusterRole", md.get("name"))] = d.get("rules") or []
            elif kind == "Role":
                self.roles[("Role", md.get("namespace") or "default", md.get("name"))] = d.get("rules") or []
            elif kind in ("ClusterRoleBinding", "RoleBinding"):
                pending.append(d)
        for d in pending:
            md = d.get("metadata") or {}
            ref = d.get("roleRef") or {}
            ns = md.get("namespace") or "default" if d["kind"] == "RoleBinding" else None
            key = ("ClusterRole", ref.get("name")) if ref.get("kind") == "ClusterRole" else ("Role", ns, ref.get("name"))
            for s in d.get("subjects") or []:
                sk, sn = s.get("kind"), s.get("name")
                if sk == "ServiceAccount":
                    sk, sn = "User", "system:serviceaccount:%s:%s" % (s.get("namespace") or ns or "default", sn)
                self.bindings.append((sk, sn, ns, key))

    def configure_tokens(self, body):
        """/_test/tokens: {"add": {"token", "user", "groups"}} or {"revoke": TOKEN} (lists allowed)."""
        adds = body.get("add") or []
        for a in adds if isinstance(adds, list) else [adds]:
            if not isinstance(a, dict) or not a.get("token") or not a.get("user"):
                raise bad_request("add needs token and user")
            groups = list(a.get("groups") or [])
            self.tokens[a["token"]] = User(a["user"], groups)
        revs = body.get("revoke") or []
        for t in revs if isinstance(revs, list) else [revs]:
            if t in self.tokens and self.tokens[t].admin and t == self.admin_token:
                raise bad_request("the admin token cannot be revoked")
            self.tokens.pop(t, None)
        return {"tokens": len(self.tokens)}

    def authenticate(self, headers, cert):
        h = headers.get("Authorization", "")
        if h.startswith("Bearer "):
            return self.tokens.get(h[7:].strip())
        if h.startswith("Basic "):
            try:
                name, _, pw = base64.b64decode(h[6:].strip()).decode().partition(":")
            except (ValueError, UnicodeDecodeError):
                return None
            ent = self.passwords.get(name)
            return User(name, ent[1]) if ent and ent[0] == pw else None
        if h:
            return None
        if cert:
            cn, orgs = None, []
            for rdn in cert.get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        cn = v
                    elif k == "organizationName":
                        orgs.append(v)
            if cn:
                return User(cn, orgs)
        return None

    def _rules(self, ref):
        if isinstance(ref, list):
            return ref
        return self.roles.get(ref, [])

    def allowed(self, user, verb, group, resource, sub, ns, name):
        if user.admin or not self.rbac:
            return user.admin
        combined = resource + ("/" + sub if sub else "")
        for sk, sn, bns, ref in self.bindings:
            if sk == "User" and sn != user.name:
                continue
            if sk == "Group" and sn not in user.groups:
                continue
            if bns is not None and bns != ns:
                continue
            for r in self._rules(ref):
                if not _in(r.get("verbs"), verb) or not _in(r.get("apiGroups"), group):
                    continue
                if not _res_match(r.get("resources") or [], combined, sub):
                    continue
                names = r.get("resourceNames") or []
                if names and name not in names:
                    continue
                return True
        return False


def impersonate(auth, user, headers):
    """kube-apiserver's impersonation filter (k8s.io/apiserver pkg/endpoints/filters/impersonation.go):
    Impersonate-User, -Uid, -Group (repeated) and -Extra-KEY headers, each allowed by the verb
    "impersonate" on users (serviceaccounts for system:serviceaccount:NS:NAME), uids, groups and
    userextras/KEY; the request then runs as that user, in those groups."""
    name = headers.get("Impersonate-User")
    groups = headers.get_all("Impersonate-Group") or []
    uid = headers.get("Impersonate-Uid")
    extras = [(k[len("impersonate-extra-"):].lower(), v) for k, v in headers.items()
              if k.lower().startswith("impersonate-extra-")]
    if not name:
        if groups or uid or extras:
            raise ApiError(500, "InternalError", "Internal error occurred: requested impersonation of groups, uid or "
                           "extra without impersonating a user")
        return user
    checks = []
    if name.startswith("system:serviceaccount:") and name.count(":") == 3:
        _, _, ns, sa = name.split(":")
        checks.append(("", "serviceaccounts", None, ns, sa))
    else:
        checks.append(("", "users", None, None, name))
    checks += [("", "groups", None, None, g) for g in groups]
    if uid is not None:
        checks.append(("authentication.k8s.io", "uids", None, None, uid))
    checks += [("authentication.k8s.io", "userextras", k, None, v) for k, v in extras]
    for group, resource, sub, ns, obj in checks:
        if not auth.allowed(user, "impersonate", group, resource, sub, ns, obj):
            raise forbidden(user, "impersonate", None, group, resource, sub, ns, obj)
    if name.startswith("system:serviceaccount:") and not groups:
        groups = ["system:serviceaccounts", "system:serviceaccounts:" + name.split(":")[2]]
    return User(name, groups)


def _in(lst, v):
    lst = lst or []
    return "*" in lst or v in lst


def _res_match(rules, combined, sub):
    for r in rules:
        if r == "*" or r == combined:
            return True
        if sub and r == "*/" + sub:
            return True
    return False


def forbidden(user, verb, res, group, resource, sub, ns, name, path=None):
    if resource is None:
        msg = 'forbidden: User "%s" cannot %s path "%s"' % (user.name, verb, path)
        return ApiError(403, "Forbidden", msg, {})
    rs = resource + ("/" + sub if sub else "")
    why = 'User "%s" cannot %s resource "%s" in API group "%s"' % (user.name, verb, rs, group)
    why += ' in the namespace "%s"' % ns if ns else " at the cluster scope"
    gr = resource + ("." + group if group else "")
    if name:
        msg = '%s "%s" is forbidden: %s' % (gr, name, why)
    else:
        msg = "%s is forbidden: %s" % (gr, why)
    det = {}
    if name:
        det["name"] = name
    if group:
        det["group"] = group
    det["kind"] = resource
    return ApiError(403, "Forbidden", msg, det)


# ============================================================ faults and statistics

class Faults:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.drop_events = None  # close every watch after N events
        self.drop_seconds = None  # ... or after S seconds
        self.drop_clean = False  # end with the terminating chunk instead of cutting the connection
        self.stall = []  # [seconds, count, path prefix]
        self.status = []  # dicts: code, retryAfter, count, path, verb, message
        self.writers = []  # dicts: path, patch, patchType, count
        self.expire_mode = "event"  # 410 on a watch: "event" (ERROR event) or "http"
        self.stall_watches = 0.0  # seconds a watch stream pauses before each event batch
        self.too_large_mode = "event"  # a watch from a future version: ERROR event (504) or "http" 504
        self.foreign = []  # dicts: object, type, path, count -- events of another kind put into watches

    def configure(self, body, store):
        with self.lock:
            if "dropWatchAfter" in body:
                v = body["dropWatchAfter"]
                if isinstance(v, dict):
                    self.drop_events = v.get("events")
                    self.drop_seconds = v.get("seconds")
                    self.drop_clean = bool(v.get("clean", False))
                elif v is None:
                    self.drop_events = self.drop_seconds = None
                else:
                    self.drop_events = int(v)
            if "stall" in body:
                v = body["stall"]
                if isinstance(v, dict):
                    self.stall.append([float(v.get("seconds", 1)), int(v.get("count", -1)), v.get("path", "")])
                elif v:
                    self.stall.append([float(v), -1, ""])
                else:
                    self.stall = []
            if "stallWatches" in body:
                self.stall_watches = float(body["stallWatches"] or 0)
            if "status" in body:
                v = body["status"]
                for s in (v if isinstance(v, list) else [v]):
                    if not isinstance(s, dict) or int(s.get("code", 0)) < 400:
                        raise bad_request("status fault needs a code >= 400")
                    self.status.append({"code": int(s["code"]), "retryAfter": s.get("retryAfter"),
                                        "count": int(s.get("count", 1)), "path": s.get("path", ""),
                                        "verb": s.get("verb"), "message": s.get("message")})
            if "concurrentWriter" in body:
                v = body["concurrentWriter"]
                for w in (v if isinstance(v, list) else [v]):
                    if not isinstance(w, dict) or "path" not in w or "patch" not in w:
                        raise bad_request("concurrentWriter needs path and patch")
                    until = time.monotonic() + float(w["seconds"]) if w.get("seconds") else None
                    self.writers.append({"path": w["path"].rstrip("/"), "patch": w["patch"],
                                         "patchType": w.get("patchType", "merge"),
                                         "count": -1 if until else int(w.get("count", 1)), "until": until,
                                         "afterGet": bool(w.get("afterGet", False)), "armed": not w.get("afterGet")})
            if "tooLargeMode" in body:
                if body["tooLargeMode"] not in ("event", "http"):
                    raise bad_request("tooLargeMode is event or http")
                self.too_large_mode = body["tooLargeMode"]
            if "foreignEvent" in body:
                v = body["foreignEvent"]
                for fe in (v if isinstance(v, list) else [v]):
                    if not isinstance(fe, dict) or not isinstance(fe.get("object"), dict):
                        raise bad_request("foreignEvent needs an object")
                    self.foreign.append({"object": fe["object"], "type": fe.get("type", "ADDED"),
                                         "path": fe.get("path", ""), "count": int(fe.get("count", 1))})
            if "expireMode" in body:
                if body["expireMode"] not in ("event", "http"):
                    raise bad_request("expireMode is event or http")
                self.expire_mode = body["expireMode"]
        if "expireBefore" in body or body.get("expireNow"):
            with store.cond:
                upto = store.rv if body.get("expireNow") else int(body["expireBefore"])
                store.compact(upto)
                if body.get("expireOpenWatches"):
                    store.expire_gen += 1
                    store.cond.notify_all()

    def take_stall(self, path):
        with self.lock:
            for s in self.stall:
                if path.startswith(s[2]) and s[1] != 0:
                    if s[1] > 0:
                        s[1] -= 1
                    return s[0]
        return 0

    def take_foreign(self, path):
        """Events of another kind for a watch of path (each entry serves count watches)."""
        out = []
        with self.lock:
            for fe in self.foreign:
                if fe["count"] != 0 and path.startswith(fe["path"]):
                    if fe["count"] > 0:
                        fe["count"] -= 1
                    out.append(b'{"type":"%s","object":%s}\n' % (fe["type"].encode(), dumps(fe["object"])))
        return out

    def take_status(self, path, verb):
        with self.lock:
            for s in self.status:
                if s["count"] != 0 and path.startswith(s["path"]) and (not s["verb"] or s["verb"] == verb):
                    if s["count"] > 0:
                        s["count"] -= 1
                    return dict(s)
        return None


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.verbs = collections.Counter()
        self.codes = collections.Counter()
        self.requests = 0
        self.watches_open = getattr(self, "watches_open", 0)
        self.watches_total = 0
        self.watch_events = 0

    def snapshot(self, store):
        with self.lock:
            out = {"requests": self.requests, "verbs": dict(self.verbs),
                   "codes": {str(k): v for k, v in self.codes.items()},
                   "watchesOpen": self.watches_open, "watchesTotal": self.watches_total,
                   "watchEvents": self.watch_events}
        with store.cond:
            out["resourceVersion"] = str(store.rv)
            out["compactedResourceVersion"] = str(store.compacted)
            out["objects"] = {gr: len(v) for gr, v in store.objs.items()}
        return out


# ============================================================ tables for kubectl

def _age(obj, clock):
    t = parse_stamp((obj.get("metadata") or {}).get("creationTimestamp"))
    return "<unknown>" if t is None else human_duration(clock.now() - t)


def _col(name, typ="string", fmt="", desc="", prio=0):
    return {"name": name, "type": typ, "format": fmt, "description": desc, "priority": prio}


NAME_COL = _col("Name", fmt="name", desc="Name must be unique within a namespace. Is required when creating "
                "resources, although some resources may allow a client to request the generation of an appropriate "
                "name automatically. Name is primarily intended for creation idempotence and configuration definition. "
                "Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names")
AGE_COL = _col("Age", desc="CreationTimestamp is a timestamp representing the server time when this object was "
               "created. It is not guaranteed to be set in happens-before order across separate operations. Clients "
               "may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. "
               "Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata")


def _pod_row(o, clock):
    spec, st, md = o.get("spec") or {}, o.get("status") or {}, o.get("metadata") or {}
    cs = st.get("containerStatuses") or []
    total = len(spec.get("containers") or [])
    ready = sum(1 for c in cs if c.get("ready"))
    restarts = sum(int(c.get("restartCount") or 0) for c in cs)
    reason = st.get("reason") or st.get("phase") or ""
    for c in cs:
        s = c.get("state") or {}
        if s.get("waiting", {}).get("reason"):
            reason = s["waiting"]["reason"]
        elif s.get("terminated", {}).get("reason"):
            reason = s["terminated"]["reason"]
    if md.get("deletionTimestamp"):
        reason = "Terminating"
    gates = spec.get("readinessGates") or []
    return ["%d/%d" % (ready, total), reason, restarts, _age(o, clock), st.get("podIP") or "<none>",
            spec.get("nodeName") or "<none>", st.get("nominatedNodeName") or "<none>",
            "%d/%d" % (0, len(gates)) if gates else "<none>"]


def _node_row(o, clock):
    st, spec, md = o.get("status") or {}, o.get("spec") or {}, o.get("metadata") or {}
    ready = "Unknown"
    for c in st.get("conditions") or []:
        if c.get("type") == "Ready":
            ready = "Ready" if c.get("status") == "True" else "NotReady"
    if spec.get("unschedulable"):
        ready += ",SchedulingDisabled"
    roles = sorted(k.split("/", 1)[1] for k in (md.get("labels") or {})
                   if k.startswith("node-role.kubernetes.io/") and k.split("/", 1)[1])
    info = st.get("nodeInfo") or {}
    addr = {a.get("type"): a.get("address") for a in st.get("addresses") or []}
    return [ready, ",".join(roles) or "<none>", _age(o, clock), info.get("kubeletVersion", ""),
            addr.get("InternalIP", "<none>"), addr.get("ExternalIP", "<none>"), info.get("osImage", "<unknown>"),
            info.get("kernelVersion", "<unknown>"), info.get("containerRuntimeVersion", "<unknown>")]


def _claim_state(o):
    md, st = o.get("metadata") or {}, o.get("status") or {}
    out = []
    if md.get("deletionTimestamp"):
        out.append("deleted")
    if not st.get("allocation"):
        if not md.get("deletionTimestamp"):
            out.append("pending")
    else:
        out.append("allocated")
        if st.get("reservedFor"):
            out.append("reserved")
        elif md.get("deletionTimestamp"):
            out.append("deallocating")
    return ",".join(out)


def _event_row(o, clock):
    inv = o.get("involvedObject") or {}
    last = parse_stamp(o.get("lastTimestamp") or o.get("eventTime") or "") or None
    first = parse_stamp(o.get("firstTimestamp") or "") or None
    src = o.get("source") or {}
    return [human_duration(clock.now() - last) if last else "<unknown>", o.get("type", ""), o.get("reason", ""),
            "%s/%s" % ((inv.get("kind") or "").lower(), inv.get("name", "")), inv.get("fieldPath", ""),
            ", ".join(x for x in (src.get("component"), src.get("host")) if x) or o.get("reportingComponent", ""),
            o.get("message", ""), human_duration(clock.now() - first) if first else "<unknown>",
            o.get("count", 1), (o.get("metadata") or {}).get("name", "")]


TABLES = {
    "pods": ([_col("Ready", desc="The aggregate readiness state of this pod for accepting traffic."),
              _col("Status", desc="The aggregate status of the containers in this pod."),
              _col("Restarts", "string", desc="The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
              AGE_COL, _col("IP", desc="IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", prio=1),
              _col("Node", desc="NodeName is a request to schedule this pod onto a specific node.", prio=1),
              _col("Nominated Node", desc="nominatedNodeName is set only when this pod preempts other pods on the node.", prio=1),
              _col("Readiness Gates", desc="If specified, all readiness gates will be evaluated for pod readiness.", prio=1)], _pod_row),
    "nodes": ([_col("Status", desc="The status of the node"), _col("Roles", desc="The roles of the node"), AGE_COL,
               _col("Version", desc="Kubelet Version reported by the node."),
               _col("Internal-IP", desc="List of addresses reachable to the node. Queried from cloud provider, if available.", prio=1),
               _col("External-IP", desc="List of addresses reachable to the node. Queried from cloud provider, if available.", prio=1),
               _col("OS-Image", desc="OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", prio=1),
               _col("Kernel-Version", desc="Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", prio=1),
               _col("Container-Runtime", desc="ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", prio=1)],
              _node_row),
    "namespaces": ([_col("Status", desc="The status of the namespace"), AGE_COL],
                   lambda o, c: [(o.get("status") or {}).get("phase", ""), _age(o, c)]),
    "events": None,
    "resourceclaims": ([_col("State", desc="A summary of the current state (allocated, pending, reserved, etc.)."), AGE_COL],
                       lambda o, c: [_claim_state(o), _age(o, c)]),
    "resourceslices": ([_col("Node", desc="NodeName identifies the node which provides the resources in this pool."),
                        _col("Driver", desc="Driver identifies the DRA driver providing the capacity information."),
                        _col("Pool", desc="Name is used to identify the pool."), AGE_COL],
                       lambda o, c: [(o.get("spec") or {}).get("nodeName") or "<none>", (o.get("spec") or {}).get("driver", ""),
                                     ((o.get("spec") or {}).get("pool") or {}).get("name", ""), _age(o, c)]),
}
EVENT_TABLE = ([_col("Last Seen", desc="Time when last event occurred"), _col("Type", desc="Type of this event."),
                _col("Reason", desc="Reason why this event was generated."), _col("Object", desc="Object this event is about."),
                _col("Subobject", desc="Subobject this event is about.", prio=1),
                _col("Source", desc="Component which generated this event.", prio=1),
                _col("Message", desc="Message describing this event."),
                _col("First Seen", desc="Time when first event occurred.", prio=1),
                _col("Count", "integer", desc="Number of times this event has occurred.", prio=1),
                _col("Name", desc="Name of this event.", prio=1)], _event_row)


def table_parts(res):
    if res.plural == "events":
        return EVENT_TABLE[0], lambda o, c: EVENT_TABLE[1](o, c)
    t = TABLES.get(res.plural)
    if t is None:
        return [AGE_COL], lambda o, c: [_age(o, c)]
    cols, fn = t
    return cols, fn


def partial_metadata(obj):
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj.get("metadata") or {}}


def make_table(res, objs, clock, include, meta, table_version="v1"):
    cols, fn = table_parts(res)
    rows = []
    for o in objs:
        if res.plural == "events":
            cells = fn(o, clock)
        else:
            cells = [(o.get("metadata") or {}).get("name", "")] + fn(o, clock)
        row = {"cells": cells}
        if include == "Object":
            row["object"] = o
        elif include != "None":
            row["object"] = partial_metadata(o)
        rows.append(row)
    columns = cols if res.plural == "events" else [NAME_COL] + cols
    return {"kind": "Table", "apiVersion": "meta.k8s.io/" + table_version, "metadata": meta,
            "columnDefinitions": columns, "rows": rows}


# ============================================================ the HTTP handler

def parse_accept(header):
    """List of (mime, params) in order."""
    out = []
    for part in (header or "").split(","):
        bits = [b.strip() for b in part.split(";")]
        if not bits[0]:
            continue
        params = {}
        for b in bits[1:]:
            k, _, v = b.partition("=")
            params[k.strip().lower()] = v.strip()
        out.append((bits[0].lower(), params))
    return out


NOT_ACCEPTABLE = ApiError(406, "NotAcceptable", "only the following media types are accepted: application/json, "
                          "application/yaml, application/vnd.kubernetes.protobuf", {})


def negotiate(header, table_ok=False, discovery=False):
    """'json' | 'yaml' | 'table' | 'pom' | 'aggregated'; raises 406."""
    accepts = parse_accept(header)
    if not accepts:
        return "json", {}
    for mime, p in accepts:
        as_ = p.get("as")
        if mime in ("application/json", "application/*", "*/*"):
            if not as_:
                return "json", p
            if as_ == "Table" and p.get("g") == "meta.k8s.io" and p.get("v") in ("v1", "v1beta1") and table_ok:
                return "table", p
            if as_ in ("PartialObjectMetadata", "PartialObjectMetadataList") and p.get("g") == "meta.k8s.io" and table_ok:
                return "pom", p
            if as_ == "APIGroupDiscoveryList" and p.get("g") == "apidiscovery.k8s.io" and p.get("v") == "v2" and discovery:
                return "aggregated", p
        elif mime in ("application/yaml",) and not as_:
            return "yaml", p
    raise NOT_ACCEPTABLE


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "dra-tools-test-apiserver"
    sys_version = ""

    def log_message(self, fmt, *args):
        if self.server.app.verbose:
            sys.stderr.write("apiserver: %s %s\n" % (self.address_string(), fmt % args))

    # ---------- plumbing
    def setup(self):
        super().setup()
        self.app = self.server.app

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def do_HEAD(self):
        self.dispatch("HEAD")

    def do_OPTIONS(self):
        self.dispatch("OPTIONS")

    def send_body(self, code, body, ctype="application/json", headers=None):
        if isinstance(body, (dict, list)):
            body = dumps(body)
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Audit-Id", str(uuid.uuid4()))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        for w in getattr(self, "warnings", ()):
            self.send_header("Warning", w)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        with self.app.stats.lock:
            self.app.stats.codes[code] += 1

    def send_error_status(self, e):
        self.send_body(e.code, e.status(), headers=e.headers)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                line = self.rfile.readline()
                n = int(line.split(b";")[0].strip() or b"0", 16)
                if n == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                parts.append(self.rfile.read(n))
                self.rfile.readline()
            return b"".join(parts)
        n = int(self.headers.get("Content-Length") or 0)
        if n > MAX_BODY:
            self.close_connection = True
            raise ApiError(413, "RequestEntityTooLarge", "Request entity too large: limit is %d" % MAX_BODY)
        return self.rfile.read(n) if n else b""

    def dispatch(self, method):
        self.body = None
        self.warnings = []
        try:
            url = urllib.parse.urlsplit(self.path)
            self.query = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
            path = url.path
            if method in ("POST", "PUT", "PATCH", "DELETE"):
                self.body = self.read_body()
            with self.app.stats.lock:
                self.app.stats.requests += 1
            if path in ("/healthz", "/readyz", "/livez"):
                return self.send_body(200, "ok", "text/plain; charset=utf-8")
            cert = None
            try:
                cert = self.connection.getpeercert()
            except (AttributeError, ValueError):
                pass
            if getattr(self.server, "plain", False):
                # the plain http port (kube-apiserver's old insecure port): no authentication,
                # every request is the admin's; the headers it came with are kept for the tests
                self.app.note_plain_request(method, self.path, self.headers)
                self.user = User("admin", ["system:masters"])
            else:
                self.user = self.app.auth.authenticate(self.headers, cert)
            if self.user is None:
                raise ApiError(401, "Unauthorized", "Unauthorized")
            self.user = impersonate(self.app.auth, self.user, self.headers)
            if path.startswith("/_test/"):
                if not self.user.admin:
                    raise forbidden(self.user, method.lower(), None, None, None, None, None, None, path)
                return self.test_endpoint(method, path)
            self.route(method, path)
        except ApiError as e:
            if e.code == 401:
                with self.app.stats.lock:
                    self.app.stats.verbs["unauthorized"] += 1
            self.send_error_status(e)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout):
            self.close_connection = True
        except Exception as e:  # a bug in this server: say so loudly as 500
            import traceback
            traceback.print_exc()
            self.send_error_status(ApiError(500, "InternalError", "Internal error occurred: %s" % e,
                                            {"causes": [{"message": str(e)}]}))

    # ---------- routing
    def route(self, method, path):
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")] if path.strip("/") else []
        if method not in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            raise METHOD_NOT_ALLOWED
        if path == "/version" or path == "/version/":
            return self.send_body(200, version_body(self.app.args.server_version))
        if parts[:1] == ["openapi"]:
            return self.openapi(parts)
        if parts == ["api"]:
            return self.discovery_api()
        if parts == ["apis"]:
            return self.discovery_apis()
        if parts[:1] == ["api"] and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 2:
            group = parts[1]
            if len(parts) == 2:
                return self.discovery_group(group)
            version, rest = parts[2], parts[3:]
        else:
            raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
        if version not in self.app.versions_of(group):
            raise NOT_FOUND_PATH
        if not rest:
            if method != "GET":
                raise METHOD_NOT_ALLOWED
            return self.discovery_version(group, version)
        if group in REVIEWS:
            if rest != [REVIEWS[group][0]]:
                raise NOT_FOUND_PATH
            if method != "POST":
                raise METHOD_NOT_ALLOWED
            return self.review(group)
        ns = None
        if rest[0] == "namespaces" and len(rest) >= 3 and group == "" and rest[2] in ("status", "finalize") and len(rest) == 3:
            res, name, sub = BY_GR["namespaces"], rest[1], rest[2]
        elif rest[0] == "namespaces" and len(rest) >= 3:
            ns = rest[1]
            res = self.app.lookup(group, rest[2])
            if res is None or not res.namespaced:
                raise NOT_FOUND_PATH
            name = rest[3] if len(rest) > 3 else None
            sub = rest[4] if len(rest) > 4 else None
            if len(rest) > 5:
                raise NOT_FOUND_PATH
        else:
            res = self.app.lookup(group, rest[0])
            if res is None:
                raise NOT_FOUND_PATH
            name = rest[1] if len(rest) > 1 else None
            sub = rest[2] if len(rest) > 2 else None
            if len(rest) > 3:
                raise NOT_FOUND_PATH
        if group == DRA_GROUP and not self.app.serves(res, version):
            raise NOT_FOUND_PATH
        if sub is not None and not (sub == "status" and res.status) and not (res.plural == "namespaces" and sub == "finalize"):
            raise NOT_FOUND_PATH
        if name == "":
            raise NOT_FOUND_PATH
        # verb
        if name is None:
            verb = {"GET": "list", "POST": "create", "DELETE": "deletecollection"}.get(method)
            if verb == "list" and self.query.get("watch") in ("1", "true", "True"):
                verb = "watch"
        else:
            verb = {"GET": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}.get(method)
        if verb is None or (verb not in res.verbs and sub is None):
            raise METHOD_NOT_ALLOWED
        if sub is not None and verb not in ("get", "update", "patch"):
            raise METHOD_NOT_ALLOWED
        auth_verb = verb
        if not self.app.auth.allowed(self.user, auth_verb, group, res.plural, sub, ns, name):
            raise forbidden(self.user, auth_verb, res, group, res.plural, sub, ns, name)
        with self.app.stats.lock:
            self.app.stats.verbs[verb] += 1
        # faults
        f = self.app.faults
        delay = f.take_stall(path)
        if delay:
            time.sleep(delay)
        st = f.take_status(path, verb)
        if st:
            raise fault_status(st, res, name)
        self.version = version
        getattr(self, "do_" + verb)(res, ns, name, sub)

    # ---------- discovery
    def discovery_api(self):
        mode, _ = negotiate(self.headers.get("Accept"), discovery=True)
        if mode == "aggregated":
            return self.send_body(200, self.app.aggregated(True), AGG_CTYPE)
        port = self.server.server_address[1]
        return self.send_body(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:%d" % port}]})

    def discovery_apis(self):
        mode, _ = negotiate(self.headers.get("Accept"), discovery=True)
        if mode == "aggregated":
            return self.send_body(200, self.app.aggregated(False), AGG_CTYPE)
        return self.send_body(200, {"kind": "APIGroupList", "apiVersion": "v1",
                                    "groups": [self.app.api_group(g) for g in [DRA_GROUP] + sorted(REVIEWS) + sorted(OTHER_GROUPS)]})

    def discovery_group(self, group):
        if group != DRA_GROUP and group not in REVIEWS and group not in OTHER_GROUPS:
            raise NOT_FOUND_PATH
        g = self.app.api_group(group)
        g["kind"], g["apiVersion"] = "APIGroup", "v1"
        return self.send_body(200, g)

    def discovery_version(self, group, version):
        out = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": (group + "/" if group else "") + version,
               "resources": []}
        if group in REVIEWS:
            plural, kind = REVIEWS[group]
            out["resources"].append({"name": plural, "singularName": kind.lower(), "namespaced": False, "kind": kind,
                                     "verbs": ["create"]})
            return self.send_body(200, out)
        for r in (CORE if group == "" else OTHER_GROUPS.get(group, DRA)):
            if not self.app.serves(r, version):
                continue
            e = {"name": r.plural, "singularName": r.singular, "namespaced": r.namespaced, "kind": r.kind,
                 "verbs": r.verbs}
            if r.short:
                e["shortNames"] = r.short
            if r.categories:
                e["categories"] = r.categories
            e["storageVersionHash"] = base64.b64encode(r.gr.encode()).decode()[:11]
            out["resources"].append(e)
            if r.status:
                out["resources"].append({"name": r.plural + "/status", "singularName": "", "namespaced": r.namespaced,
                                         "kind": r.kind, "verbs": ["get", "patch", "update"]})
            if r.plural == "namespaces":
                out["resources"].append({"name": "namespaces/finalize", "singularName": "", "namespaced": False,
                                         "kind": "Namespace", "verbs": ["update"]})
        return self.send_body(200, out)

    def review(self, group):
        """SelfSubjectAccessReview (is this user allowed?) and SelfSubjectReview (who am I?)."""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype == "application/vnd.kubernetes.protobuf":
            # kubectl's typed clients send protobuf: read the few fields a review has
            body = ssar_from_protobuf(self.body or b"")
        else:
            try:
                body = json.loads(self.body or b"{}")
            except ValueError as e:
                raise bad_request("couldn't get version/kind; json parse error: %s" % e)
        if not isinstance(body, dict):
            raise bad_request("the body must be a JSON object")
        plural, kind = REVIEWS[group]
        with self.app.stats.lock:
            self.app.stats.verbs["create"] += 1
        out = {"kind": kind, "apiVersion": group + "/v1", "metadata": {"creationTimestamp": None}}
        if group == "authentication.k8s.io":
            out["status"] = {"userInfo": {"username": self.user.name, "groups": self.user.groups}}
            return self.send_body(201, out)
        spec = body.get("spec") or {}
        ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
        if ra:
            allowed = self.app.auth.allowed(self.user, ra.get("verb", ""), ra.get("group", ""), ra.get("resource", ""),
                                            ra.get("subresource") or None, ra.get("namespace") or None, ra.get("name") or None)
        elif nra:
            allowed = self.user.admin or nra.get("verb") == "get" and any(
                nra.get("path", "").startswith(p) for p in ("/api", "/apis", "/version", "/openapi", "/healthz", "/readyz", "/livez"))
        else:
            raise invalid(BY_GR_REVIEW, "", [("spec.resourceAttributes", "FieldValueRequired",
                                              "Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified")])
        out["spec"] = spec
        out["status"] = {"allowed": bool(allowed)}
        return self.send_body(201, out)

    def openapi(self, parts):
        if parts == ["openapi", "v3"]:
            paths = {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=0"}}
            for v in self.app.versions_of(DRA_GROUP):
                paths["apis/%s/%s" % (DRA_GROUP, v)] = {"serverRelativeURL": "/openapi/v3/apis/%s/%s?hash=0" % (DRA_GROUP, v)}
            return self.send_body(200, {"paths": paths})
        if len(parts) >= 3 and parts[1] == "v3":
            gv = "/".join(parts[2:])
            return self.send_body(200, self.app.openapi_v3(gv))
        raise NOT_FOUND_PATH

    # ---------- output
    def output_objects(self, res, objs, meta, list_kind=True, code=200):
        """Send a list (list_kind) or a single object honouring Accept."""
        mode, p = negotiate(self.headers.get("Accept"), table_ok=True)
        if mode == "table":
            include = self.query.get("includeObject", "Metadata")
            t = make_table(res, objs, self.app.clock, include, meta, p.get("v", "v1"))
            self.send_body(code, t)
            return True
        if mode == "pom":
            if list_kind:
                self.send_body(code, {"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                                      "metadata": meta, "items": [partial_metadata(o) for o in objs]})
            else:
                self.send_body(code, partial_metadata(objs[0]))
            return True
        if mode == "yaml":
            if list_kind:
                body = {"kind": res.kind + "List", "apiVersion": res.api_version(self.version), "metadata": meta,
                        "items": [self.app.out_obj(o, self.version) for o in objs]}
            else:
                body = self.app.out_obj(objs[0], self.version)
            self.send_body(code, kyaml.dump(body), "application/yaml")
            return True
        if list_kind:
            return False
        self.send_body(code, dumps(self.app.out_obj(objs[0], self.version)))
        return True

    def send_obj(self, res, obj, code=200):
        self.output_objects(res, [obj], None, list_kind=False, code=code)

    # ---------- reading
    def selectors(self, res):
        try:
            labels = kpatch.parse_label_selector(self.query.get("labelSelector", ""))
            fields = kpatch.parse_field_selector(self.query.get("fieldSelector", ""))
        except kpatch.SelectorError as e:
            raise bad_request(str(e))
        out = []
        for f, op, v in fields:
            if f not in res.fields:
                raise bad_request('"%s" is not a known field selector: only "%s"' % (f, '", "'.join(res.fields)))
            out.append((FIELD_ALIASES.get(f, f) if res.plural == "events" else f, op, v))
        return labels, out

    def matcher(self, res, ns):
        labels, fields = self.selectors(res)

        def match(obj):
            md = obj.get("metadata") or {}
            if ns is not None and md.get("namespace") != ns:
                return False
            if labels and not kpatch.label_match(labels, md.get("labels")):
                return False
            if fields and not kpatch.field_match(fields, obj):
                return False
            return True
        return match, bool(labels or fields)

    def do_get(self, res, ns, name, sub):
        store = self.app.store
        with store.cond:
            ent = store.objs[res.gr].get((ns or "", name))
        if ent is None:
            raise not_found(res, name)
        self.app.note_get(res, ns, name)
        mode, _ = negotiate(self.headers.get("Accept"), table_ok=True)
        if mode == "json":
            return self.send_body(200, self.app.out_data(ent[1], self.version))
        self.send_obj(res, ent[0])

    def do_list(self, res, ns, name, sub):
        store = self.app.store
        match, selective = self.matcher(res, ns)
        q = self.query
        limit = int(q.get("limit") or 0) if (q.get("limit") or "0").lstrip("-").isdigit() else None
        if limit is None or limit < 0:
            raise bad_request("limit must be a non-negative integer")
        cont = q.get("continue", "")
        rvp = q.get("resourceVersion", "")
        rvm = q.get("resourceVersionMatch", "")
        if rvm and rvm not in ("Exact", "NotOlderThan"):
            raise bad_request('resourceVersionMatch: Unsupported value: "%s": supported values: "Exact", "NotOlderThan"' % rvm)
        if rvm and not rvp:
            raise bad_request("resourceVersionMatch is forbidden unless resourceVersion is provided")
        if cont and rvp and rvp != "0":
            raise bad_request("specifying resource version is not allowed when using continue")
        if rvp and not rvp.isdigit():
            raise bad_request('Invalid value: "%s": invalid resource version' % rvp)
        with store.cond:
            start = ""
            if cont:
                try:
                    tok = json.loads(base64.urlsafe_b64decode(cont + "=" * (-len(cont) % 4)))
                    at = int(tok["rv"])
                    start = tok["start"]
                    if tok.get("v") != "meta.k8s.io/v1":
                        raise ValueError("bad version")
                except (ValueError, KeyError, TypeError) as e:
                    raise bad_request("continue key is not valid: %s" % e)
                if at == -1:
                    at = store.rv  # an inconsistent continuation: go on from the latest version
                elif at < store.compacted:
                    e = expired(CONTINUE_EXPIRED)
                    tok["rv"] = -1
                    e.list_continue = base64.urlsafe_b64encode(dumps(tok)).decode().rstrip("=")
                    raise e
            elif rvp and rvp != "0" and rvm == "Exact":
                at = int(rvp)
                if at < store.compacted:
                    raise expired("The resourceVersion for the provided list is too old.")
                if at > store.rv:
                    raise too_large(at, store.rv)
            else:
                if rvp and rvp != "0" and int(rvp) > store.rv:
                    raise too_large(int(rvp), store.rv)
                at = store.rv
            snap = store.snapshot(res.gr, at)
        keys = sorted(snap)
        if ns is not None:
            keys = [k for k in keys if k[0] == ns]
        if start:
            s = tuple(start.rstrip("\x00").split("/", 1)) if res.namespaced else ("", start.rstrip("\x00"))
            keys = [k for k in keys if k > s]
        items, last = [], None
        nmatched_total = None
        i = 0
        for i, k in enumerate(keys):
            obj, data = snap[k]
            if not match(obj):
                continue
            if limit and len(items) >= limit:
                break
            items.append((obj, data))
            last = k
        else:
            i = len(keys)
        meta = {"resourceVersion": str(at)}
        more = limit and i < len(keys) and len(items) >= limit
        if more:
            # anything left that matches?
            if any(match(snap[k][0]) for k in keys[i:]):
                startkey = ("%s/%s" % last if res.namespaced else last[1]) + "\x00"
                tok = {"v": "meta.k8s.io/v1", "rv": at, "start": startkey}
                meta["continue"] = base64.urlsafe_b64encode(dumps(tok)).decode().rstrip("=")
                if not selective:
                    nmatched_total = len(keys) - i
                    meta["remainingItemCount"] = nmatched_total
        sent = self.output_objects(res, [o for o, _ in items], meta)
        if sent:
            return
        head = b'{"kind":"%s","apiVersion":"%s","metadata":%s,"items":[' % (
            (res.kind + "List").encode(), res.api_version(self.version).encode(), dumps(meta))
        # Items of a list carry no kind and apiVersion, as from kube-apiserver.
        prefix = b'{"kind":"%s","apiVersion":"%s",' % (res.kind.encode(), res.api_version(res.version).encode())
        n = len(prefix)
        body = head + b",".join(b"{" + d[n:] if d.startswith(prefix) else d for _, d in items) + b"]}"
        self.send_body(200, body)

    # ---------- watch
    def do_watch(self, res, ns, name, sub):
        app, store = self.app, self.app.store
        match, _ = self.matcher(res, ns)
        q = self.query
        rvp = q.get("resourceVersion", "")
        if rvp and not rvp.isdigit():
            raise bad_request('Invalid value: "%s": invalid resource version' % rvp)
        bookmarks = q.get("allowWatchBookmarks") in ("1", "true", "True")
        initial = q.get("sendInitialEvents") in ("1", "true", "True")
        if initial and (q.get("resourceVersionMatch") != "NotOlderThan" or not bookmarks):
            raise invalid(res, "", [("sendInitialEvents", "FieldValueForbidden",
                                     "Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature "
                                     "gate is enabled, resourceVersionMatch=NotOlderThan and allowWatchBookmarks=true")])
        try:
            timeout = float(q.get("timeoutSeconds") or 0) or app.min_request_timeout * (1 + random.random())
        except ValueError:
            raise bad_request("invalid timeoutSeconds")
        mode, p = negotiate(self.headers.get("Accept"), table_ok=True)
        f = app.faults
        with store.cond:
            expired_gen = store.expire_gen
            restart_gen = store.restart_gen
            if rvp and rvp != "0" and not initial:
                pos = int(rvp)
                end = time.monotonic() + TOO_LARGE_WAIT
                while pos > store.rv and not store.stopping and time.monotonic() < end:
                    store.cond.wait(max(0.0, end - time.monotonic()))
                if pos > store.rv:
                    # after an etcd restore the server's versions are behind the client's
                    err = too_large(pos, store.rv)
                    if f.too_large_mode == "http":
                        raise err
                    initial_objs, pos = None, None
                elif pos < store.compacted:
                    err = expired("too old resource version: %d (%d)" % (pos, store.compacted))
                    if f.expire_mode == "http":
                        raise err
                    initial_objs, pos = None, None
                else:
                    initial_objs = []
            else:
                pos = store.rv
                snap = store.objs[res.gr]
                initial_objs = [snap[k] for k in sorted(snap)]
        # headers
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Audit-Id", str(uuid.uuid4()))
        self.end_headers()
        self.close_connection = True
        with app.stats.lock:
            app.stats.watches_open += 1
            app.stats.watches_total += 1
            app.stats.codes[200] += 1
        sent = 0
        started = time.monotonic()
        deadline = started + timeout
        kind_av = (res.kind, res.api_version(self.version))

        def encode(etype, obj, data):
            if mode == "table":
                o = make_table(res, [obj], app.clock, q.get("includeObject", "Metadata"), {"resourceVersion": obj["metadata"].get("resourceVersion", "")}, p.get("v", "v1"))
                return b'{"type":"%s","object":%s}\n' % (etype.encode(), dumps(o))
            if mode == "pom":
                return b'{"type":"%s","object":%s}\n' % (etype.encode(), dumps(partial_metadata(obj)))
            return b'{"type":"%s","object":%s}\n' % (etype.encode(), app.out_data(data, self.version))

        def bookmark(rv, extra=None):
            md = {"resourceVersion": str(rv), "creationTimestamp": None}
            if extra:
                md["annotations"] = extra
            return b'{"type":"BOOKMARK","object":%s}\n' % dumps({"kind": kind_av[0], "apiVersion": kind_av[1], "metadata": md})

        def write(chunk):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))

        def finish(clean=True):
            if clean:
                try:
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass
            else:
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        try:
            if pos is None:
                write(encode_error(err))
                return finish()
            if initial_objs:
                buf = []
                for obj, data in initial_objs:
                    if match(obj):
                        buf.append(encode("ADDED", obj, data))
                        sent += 1
                        if f.drop_events and sent >= f.drop_events:
                            break
                if buf:
                    write(b"".join(buf))
                if f.drop_events and sent >= f.drop_events:
                    return finish(f.drop_clean)
            foreign = f.take_foreign(urllib.parse.urlsplit(self.path).path)
            if foreign:
                write(b"".join(foreign))
            if initial:
                write(bookmark(pos, {"k8s.io/initial-events-end": "true"}))
            last_bookmark = time.monotonic()
            while True:
                now = time.monotonic()
                if now >= deadline:
                    return finish()
                if f.drop_seconds and now - started >= f.drop_seconds:
                    return finish(f.drop_clean)
                wait = min(deadline - now, app.bookmark_interval - (now - last_bookmark) if bookmarks else 3600, 1.0)
                if f.drop_seconds:
                    wait = min(wait, started + f.drop_seconds - now)
                with store.cond:
                    evs = store.events_after(pos)
                    if (evs == [] and not store.stopping and store.expire_gen == expired_gen
                            and store.restart_gen == restart_gen):
                        store.cond.wait(max(0.0, wait))
                        evs = store.events_after(pos)
                    stopping = store.stopping
                    comp = store.compacted
                    gen = store.expire_gen
                    restarted = store.restart_gen != restart_gen
                if stopping:
                    return finish()
                if restarted:
                    return finish(False)
                if evs is None or gen != expired_gen:
                    write(encode_error(expired("too old resource version: %d (%d)" % (pos, comp))))
                    return finish()
                if f.stall_watches and evs:
                    time.sleep(f.stall_watches)
                buf = []
                for ev in evs:
                    pos = ev.rv
                    if ev.gr != res.gr:
                        continue
                    new_ok = ev.type != "DELETED" and match(ev.obj)
                    old_ok = ev.prev is not None and match(ev.prev)
                    if ev.type == "ADDED" and new_ok:
                        etype = "ADDED"
                    elif ev.type == "MODIFIED" and (new_ok or old_ok):
                        etype = "MODIFIED" if new_ok and old_ok else ("ADDED" if new_ok else "DELETED")
                    elif ev.type == "DELETED" and old_ok:
                        etype = "DELETED"
                    else:
                        continue
                    buf.append(encode(etype, ev.obj, ev.data))
                    sent += 1
                    if f.drop_events and sent >= f.drop_events:
                        break
                if buf:
                    write(b"".join(buf))
                    with app.stats.lock:
                        app.stats.watch_events += len(buf)
                    last_bookmark = time.monotonic() if not bookmarks else last_bookmark
                if f.drop_events and sent >= f.drop_events:
                    return finish(f.drop_clean)
                if bookmarks and time.monotonic() - last_bookmark >= app.bookmark_interval:
                    write(bookmark(pos))
                    last_bookmark = time.monotonic()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            pass
        finally:
            with app.stats.lock:
                app.stats.watches_open -= 1

    # ---------- writing
    def parse_object(self, res, allow_yaml=True):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype == "application/json" or ctype == "":
            try:
                obj = json.loads(self.body or b"")
            except (ValueError, UnicodeDecodeError) as e:
                raise bad_request("couldn't get version/kind; json parse error: %s" % e)
        elif ctype == "application/yaml" and allow_yaml:
            try:
                docs = kyaml.load_all(self.body.decode())
            except (kyaml.YAMLError, UnicodeDecodeError) as e:
                raise bad_request("error converting YAML to JSON: yaml: %s" % e)
            if len(docs) != 1:
                raise bad_request("expected exactly one YAML document")
            obj = docs[0]
        else:
            raise ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                           "accepted media types include: application/json, application/yaml, "
                           "application/vnd.kubernetes.protobuf", {})
        if not isinstance(obj, dict):
            raise bad_request("couldn't get version/kind; json parse error: json: cannot unmarshal %s into Go value "
                              "of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                              "\"json:\\\"kind,omitempty\\\"\" }" % type(obj).__name__)
        self.check_fields(res, obj)
        return self.check_kind(res, obj)

    def check_fields(self, res, obj):
        """fieldValidation: Strict -> 400, Warn (the default) -> Warning headers, Ignore.
        Only the top level and metadata are known here; specs are not checked."""
        mode = self.query.get("fieldValidation", "Warn")
        if mode not in ("Strict", "Warn", "Ignore"):
            raise bad_request('fieldValidation: Unsupported value: "%s": supported values: "Ignore", "Strict", "Warn"' % mode)
        known = EVENT_FIELDS_TOP if res.plural == "events" else TOP_FIELDS + (["status"] if res.status else [])
        unknown = ['unknown field "%s"' % k for k in obj if k not in known]
        md = obj.get("metadata")
        if isinstance(md, dict):
            unknown += ['unknown field "metadata.%s"' % k for k in md if k not in META_FIELDS]
        if not unknown or mode == "Ignore":
            return
        if mode == "Strict":
            raise bad_request("strict decoding error: " + ", ".join(unknown))
        self.warnings = ['299 - "%s"' % u.replace('"', '\\"') for u in unknown]

    def check_kind(self, res, obj):
        want_av = res.api_version(self.version)
        av, kind = obj.get("apiVersion"), obj.get("kind")
        if av is None and kind is None:
            obj["apiVersion"], obj["kind"] = want_av, res.kind
        if av is not None and av != want_av:
            raise bad_request("the API version in the data (%s) does not match the expected API version (%s)" % (av, want_av))
        if kind is not None and kind != res.kind:
            raise bad_request("the kind in the data (%s) does not match the expected kind (%s)" % (kind, res.kind))
        obj["apiVersion"], obj["kind"] = want_av, res.kind
        if not isinstance(obj.get("metadata", {}), dict):
            raise bad_request("metadata must be an object")
        obj.setdefault("metadata", {})
        obj = self.app.to_storage(obj)
        return obj

    def dry_run(self):
        v = self.query.get("dryRun")
        if v is None:
            return False
        if v != "All":
            raise bad_request('dryRun: Unsupported value: "%s": supported values: "All"' % v)
        return True

    def path_object(self, res, ns, name):
        return "/".join(x for x in (res.gr, ns or "", name) if x is not None)

    def do_create(self, res, ns, name, sub):
        obj = self.parse_object(res)
        out = self.app.create(res, ns, obj, dry=self.dry_run())
        self.send_obj(res, out, 201)

    def do_update(self, res, ns, name, sub):
        obj = self.parse_object(res)
        out, created = self.app.update(res, ns, name, sub, obj, dry=self.dry_run(), path=self.path_object(res, ns, name))
        self.send_obj(res, out, 201 if created else 200)

    def do_patch(self, res, ns, name, sub):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype == "application/apply-patch+yaml":
            return self.do_apply(res, ns, name, sub)
        if self.query.get("force") is not None:
            raise invalid_patch_options("force: Forbidden: may not be specified for non-apply patch")
        kinds = {"application/json-patch+json": "json", "application/merge-patch+json": "merge",
                 "application/strategic-merge-patch+json": "strategic"}
        if ctype not in kinds:
            raise ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted "
                           "media types include: application/json-patch+json, application/merge-patch+json, "
                           "application/apply-patch+yaml, application/strategic-merge-patch+json", {})
        try:
            patch = json.loads(self.body or b"")
        except (ValueError, UnicodeDecodeError) as e:
            raise bad_request("error decoding patch: %s" % e)
        out = self.app.patch(res, ns, name, sub, kinds[ctype], patch, dry=self.dry_run(),
                             path=self.path_object(res, ns, name))
        self.send_obj(res, out)

    def do_apply(self, res, ns, name, sub):
        """Server-side apply (kssa.py); the body is YAML or JSON."""
        fm = self.query.get("fieldManager")
        if not fm:
            raise invalid_patch_options("fieldManager: Required value: is required for apply patch")
        force = self.query.get("force")
        if force not in (None, "true", "false"):
            raise bad_request('force: Invalid value: "%s": strconv.ParseBool: parsing "%s": invalid syntax' % (force, force))
        try:
            docs = kyaml.load_all((self.body or b"").decode())
        except (kyaml.YAMLError, UnicodeDecodeError) as e:
            raise bad_request("error decoding YAML: %s" % e)
        if len(docs) != 1 or not isinstance(docs[0], dict):
            raise bad_request("error decoding YAML: expected one object")
        cfg = docs[0]
        if cfg.get("kind") != res.kind or cfg.get("apiVersion") != res.api_version(self.version):
            raise bad_request("invalid object type: %s, Kind=%s" % (cfg.get("apiVersion", "/"), cfg.get("kind", "")))
        md = cfg.get("metadata") if isinstance(cfg.get("metadata"), dict) else {}
        if md.get("name") != name:
            raise bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                              % (md.get("name", ""), name))
        out, created = self.app.apply(res, ns, name, sub, cfg, fm, force == "true", dry=self.dry_run(),
                                      path=self.path_object(res, ns, name))
        self.send_obj(res, out, 201 if created else 200)

    def delete_options(self):
        if not self.body:
            opts = {}
        else:
            try:
                opts = json.loads(self.body)
            except (ValueError, UnicodeDecodeError) as e:
                raise bad_request("couldn't get version/kind; json parse error: %s" % e)
            if not isinstance(opts, dict):
                raise bad_request("DeleteOptions must be a JSON object")
        for k in ("gracePeriodSeconds", "propagationPolicy", "orphanDependents"):
            if k in self.query:
                v = self.query[k]
                opts[k] = int(v) if k == "gracePeriodSeconds" else v
        pp = opts.get("propagationPolicy")
        if pp is not None and pp not in ("Orphan", "Background", "Foreground"):
            raise invalid_options('propagationPolicy: Unsupported value: "%s": supported values: "Foreground", "Background", "Orphan"' % pp)
        if self.query.get("dryRun") is not None:
            opts["dryRun"] = [self.query["dryRun"]]
        return opts

    def do_delete(self, res, ns, name, sub):
        opts = self.delete_options()
        out, deleted = self.app.delete(res, ns, name, opts, path=self.path_object(res, ns, name))
        if deleted and not self.app.return_deleted(res):
            st = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                  "details": dict(_details(res, name), uid=out["metadata"].get("uid"))}
            return self.send_body(200, st)
        self.send_obj(res, out)

    def do_deletecollection(self, res, ns, name, sub):
        opts = self.delete_options()
        match, _ = self.matcher(res, ns)
        store = self.app.store
        with store.cond:
            keys = sorted(k for k, (o, _) in store.objs[res.gr].items() if match(o))
        items = []
        for k in keys:
            try:
                out, _ = self.app.delete(res, k[0] or None, k[1], opts, path=self.path_object(res, k[0] or None, k[1]))
                items.append(self.app.out_obj(out, self.version))
            except ApiError as e:
                if e.code != 404:
                    raise
        with store.cond:
            rv = store.rv
        self.send_body(200, {"kind": res.kind + "List", "apiVersion": res.api_version(self.version),
                             "metadata": {"resourceVersion": str(rv)}, "items": items})

    # ---------- /_test/
    def test_endpoint(self, method, path):
        app = self.app
        if method == "GET" and path == "/_test/stats":
            return self.send_body(200, app.stats.snapshot(app.store))
        if method != "POST":
            raise METHOD_NOT_ALLOWED
        try:
            body = json.loads(self.body or b"{}")
        except ValueError as e:
            raise bad_request("invalid JSON: %s" % e)
        if not isinstance(body, dict) and path != "/_test/objects":
            raise bad_request("body must be a JSON object")
        if path == "/_test/faults":
            app.faults.configure(body, app.store)
            return self.send_body(200, {"ok": True})
        if path == "/_test/reset":
            app.faults.reset()
            with app.stats.lock:
                app.stats.reset()
            if body.get("objects"):
                app.wipe()
            return self.send_body(200, {"ok": True})
        if path == "/_test/burst":
            return self.send_body(200, app.burst(body))
        if path == "/_test/objects":
            docs = body if isinstance(body, list) else (body.get("items") if body.get("kind", "").endswith("List") else [body])
            n = app.load_objects(docs, "request body")
            return self.send_body(200, {"loaded": n, "resourceVersion": str(app.store.rv)})
        if path == "/_test/tokens":
            return self.send_body(200, app.auth.configure_tokens(body))
        if path == "/_test/restore":
            if "resourceVersion" not in body:
                raise bad_request("restore needs resourceVersion")
            with app.store.cond:
                app.store.restore(int(body["resourceVersion"]))
            return self.send_body(200, {"resourceVersion": str(app.store.rv)})
        if path == "/_test/compact":
            app.faults.configure({"expireNow": True}, app.store)
            return self.send_body(200, {"resourceVersion": str(app.store.rv)})
        raise NOT_FOUND_PATH


AGG_CTYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
MAX_BODY = 3 * 1024 * 1024  # kube-apiserver's request body limit


def pb_fields(data):
    """Protocol buffer wire format: [(field number, value)] for varint and length-delimited fields."""
    out, i = [], 0
    while i < len(data):
        key, i = _varint(data, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(data, i)
        elif wt == 2:
            n, i = _varint(data, i)
            v, i = data[i:i + n], i + n
        elif wt == 1:
            v, i = data[i:i + 8], i + 8
        elif wt == 5:
            v, i = data[i:i + 4], i + 4
        else:
            raise bad_request("cannot decode protobuf body")
        out.append((num, v))
    return out


def _varint(data, i):
    v = shift = 0
    while True:
        if i >= len(data):
            raise bad_request("cannot decode protobuf body")
        b = data[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def ssar_from_protobuf(data):
    """A SelfSubjectAccessReview from the "k8s\\0" + runtime.Unknown envelope (k8s.io/api/authorization/v1/generated.proto)."""
    if not data.startswith(b"k8s\x00"):
        raise bad_request("protobuf body without the k8s envelope")
    raw = dict(pb_fields(data[4:])).get(2, b"")
    spec = dict(pb_fields(raw)).get(2, b"")
    out = {}
    for num, v in pb_fields(spec):
        if num == 1:
            names = {1: "namespace", 2: "verb", 3: "group", 4: "version", 5: "resource", 6: "subresource", 7: "name"}
            out["resourceAttributes"] = {names[n]: x.decode() for n, x in pb_fields(v) if n in names}
        elif num == 2:
            names = {1: "path", 2: "verb"}
            out["nonResourceAttributes"] = {names[n]: x.decode() for n, x in pb_fields(v) if n in names}
    return {"spec": out}


def encode_error(err):
    return b'{"type":"ERROR","object":%s}\n' % dumps(err.status())


def invalid_options(msg):
    return ApiError(422, "Invalid", 'DeleteOptions.meta.k8s.io "" is invalid: ' + msg, {"group": "meta.k8s.io", "kind": "DeleteOptions"})


def invalid_patch_options(msg):
    return ApiError(422, "Invalid", 'PatchOptions.meta.k8s.io "" is invalid: ' + msg, {"group": "meta.k8s.io", "kind": "PatchOptions"})


def fault_status(st, res, name):
    code = st["code"]
    ra = st.get("retryAfter")
    headers = {"Retry-After": str(ra)} if ra is not None else {}
    reasons = {429: ("TooManyRequests", "Too many requests, please try again later."),
               500: ("InternalError", "Internal error occurred: injected fault"),
               503: ("ServiceUnavailable", "The server is currently unable to handle the request"),
               504: ("Timeout", "Timeout: request did not complete within the allotted timeout")}
    reason, msg = reasons.get(code, ("", "injected fault"))
    det = {}
    if ra is not None:
        det["retryAfterSeconds"] = int(ra)
    return ApiError(code, reason, st.get("message") or msg, det, headers)


# ============================================================ the application

class App:
    def __init__(self, args):
        self.args = args
        self.verbose = args.verbose
        self.clock = Clock(parse_stamp(args.now) if args.now else None)
        self.store = Store(args.history, self.clock)
        self.faults = Faults()
        self.stats = Stats()
        self.bookmark_interval = args.bookmark_interval
        self.min_request_timeout = args.min_request_timeout
        self.dra_versions = args.dra_versions.split(",")
        self.minor = int(args.server_version.lstrip("v").split(".")[1])
        self.gets = collections.Counter()
        self.writes_by_writer = 0
        self.plain_log = None  # --plain-http: file of the requests' headers, one JSON line each
        self.plain_lock = threading.Lock()

    def note_plain_request(self, method, path, headers):
        if self.plain_log is None:
            return
        line = dumps({"method": method, "path": path, "headers": [[k, v] for k, v in headers.items()]})
        with self.plain_lock:
            with open(self.plain_log, "ab") as f:
                f.write(line + b"\n")

    # ----- versions
    def versions_of(self, group):
        if group in REVIEWS:
            return ["v1"]
        if group in OTHER_GROUPS:
            return sorted({r.version for r in OTHER_GROUPS[group]})
        return ["v1"] if group == "" else self.dra_versions if group == DRA_GROUP else []

    def serves(self, res, version):
        if res.group == "" or res.group in OTHER_GROUPS:
            return version == res.version
        if res.plural == "devicetaintrules" and version == "v1" and self.minor < 37:
            # 1.36 serves them as v1beta2 (and v1alpha3) only: k8s.io/kubernetes
            # v1.36.3 pkg/registry/resource/rest/storage_resource.go v1Storage
            return False
        return version in self.dra_versions

    def lookup(self, group, plural):
        r = BY_GR.get(plural + ("." + group if group else ""))
        return r

    def api_group(self, group=DRA_GROUP):
        vs = [{"groupVersion": "%s/%s" % (group, v), "version": v} for v in self.versions_of(group)]
        return {"name": group, "versions": vs, "preferredVersion": vs[0]}

    def aggregated(self, core):
        def res_entry(r, v):
            e = {"resource": r.plural, "responseKind": {"group": r.group, "version": v, "kind": r.kind},
                 "scope": "Namespaced" if r.namespaced else "Cluster", "singularResource": r.singular, "verbs": r.verbs}
            if r.short:
                e["shortNames"] = r.short
            if r.categories:
                e["categories"] = r.categories
            subs = []
            if r.status:
                subs.append({"subresource": "status", "responseKind": {"group": r.group, "version": v, "kind": r.kind},
                             "verbs": ["get", "patch", "update"]})
            if r.plural == "namespaces":
                subs.append({"subresource": "finalize", "responseKind": {"group": "", "version": "v1", "kind": "Namespace"},
                             "verbs": ["update"]})
            if subs:
                e["subresources"] = subs
            return e
        if core:
            items = [{"metadata": {"creationTimestamp": None},
                      "versions": [{"version": "v1", "resources": [res_entry(r, "v1") for r in CORE], "freshness": "Current"}]}]
        else:
            items = [{"metadata": {"name": DRA_GROUP, "creationTimestamp": None},
                      "versions": [{"version": v, "resources": [res_entry(r, v) for r in DRA if self.serves(r, v)],
                                    "freshness": "Current"} for v in self.dra_versions]}]
            for g in sorted(REVIEWS):
                plural, kind = REVIEWS[g]
                items.append({"metadata": {"name": g, "creationTimestamp": None}, "versions": [{"version": "v1", "resources": [
                    {"resource": plural, "responseKind": {"group": g, "version": "v1", "kind": kind}, "scope": "Cluster",
                     "singularResource": kind.lower(), "verbs": ["create"]}], "freshness": "Current"}]})
            for g in sorted(OTHER_GROUPS):
                items.append({"metadata": {"name": g, "creationTimestamp": None},
                              "versions": [{"version": v, "resources": [res_entry(r, v) for r in OTHER_GROUPS[g] if self.serves(r, v)],
                                            "freshness": "Current"} for v in self.versions_of(g)]})
        return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": items}

    def openapi_v3(self, gv):
        """A minimal OpenAPI v3 document: enough for kubectl to look up the
        kinds and to learn that the server validates fields itself."""
        if gv == "api/v1":
            group, version, ress = "", "v1", CORE
        elif gv.startswith("apis/%s/" % DRA_GROUP) and gv.split("/")[-1] in self.dra_versions:
            group, version, ress = DRA_GROUP, gv.split("/")[-1], DRA
        else:
            raise NOT_FOUND_PATH
        paths, schemas = {}, {}
        prefix = "/api/v1" if group == "" else "/apis/%s/%s" % (group, version)
        for r in ress:
            if not self.serves(r, version):
                continue
            gvk = {"group": group, "version": version, "kind": r.kind}
            sname = "io.k8s.api.%s.%s.%s" % ("core" if group == "" else "resource", version, r.kind)
            schemas[sname] = {"type": "object", "x-kubernetes-group-version-kind": [gvk],
                              "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                                             "metadata": {"type": "object"}, "spec": {"type": "object"},
                                             "status": {"type": "object"}}}
            params = [{"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
                      {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": True}}]
            coll = prefix + ("/namespaces/{namespace}/" if r.namespaced else "/") + r.plural
            op = lambda act: {"x-kubernetes-action": act, "x-kubernetes-group-version-kind": gvk, "parameters": params,
                              "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/" + sname}}}}}}
            paths[coll] = {"post": op("post"), "get": op("list")}
            paths[coll + "/{name}"] = {"get": op("get"), "put": op("put"), "patch": op("patch"), "delete": op("delete")}
        return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": self.args.server_version}, "paths": paths,
                "components": {"schemas": schemas}}

    def return_deleted(self, res):
        return res.plural in ("pods", "nodes", "namespaces", "events") or res.group == DRA_GROUP

    def out_data(self, data, version):
        if version == "v1":
            return data
        return data.replace(b'"apiVersion":"%s/v1"' % DRA_GROUP.encode(),
                            b'"apiVersion":"%s/%s"' % (DRA_GROUP.encode(), version.encode()), 1)

    def out_obj(self, obj, version):
        if version == "v1" or obj.get("apiVersion") != DRA_GROUP + "/v1":
            return obj
        return dict(obj, apiVersion="%s/%s" % (DRA_GROUP, version))

    def to_storage(self, obj):
        av = obj.get("apiVersion", "")
        if av.startswith(DRA_GROUP + "/"):
            obj["apiVersion"] = DRA_GROUP + "/v1"
        return obj

    @staticmethod
    def writer_matches(w, res, ns, name):
        suffix = ("/namespaces/%s" % ns if ns else "") + "/%s/%s" % (res.plural, name)
        return w["path"].endswith(suffix) or w["path"].endswith(suffix + "/status")

    def note_get(self, res, ns, name):
        with self.faults.lock:
            for w in self.faults.writers:
                if w["afterGet"] and w["count"] and self.writer_matches(w, res, ns, name):
                    w["armed"] = True

    # ----- the write paths (callers do not hold the lock)
    def key_of(self, res, ns, name):
        return (ns or "" if res.namespaced else "", name)

    def create(self, res, ns, obj, dry=False, raw=False):
        """raw: loading test data -- keep status, uid, timestamps and create namespaces."""
        md = obj["metadata"]
        if res.namespaced:
            if md.get("namespace") and ns and md["namespace"] != ns:
                raise bad_request("the namespace of the provided object does not match the namespace sent on the request")
            ns = ns or md.get("namespace") or "default"
            md["namespace"] = ns
        else:
            md.pop("namespace", None)
            ns = None
        store = self.store
        with store.cond:
            if not md.get("name") and md.get("generateName"):
                for _ in range(100):
                    cand = md["generateName"] + "".join(random.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
                    if self.key_of(res, ns, cand) not in store.objs[res.gr]:
                        break
                md["name"] = cand
            name = md.get("name") or ""
            if not name:
                raise invalid(res, "", [("metadata.name", "FieldValueRequired", "Required value: name or generateName is required")])
            err = name_error(res, name)
            if err:
                raise invalid(res, name, [("metadata.name", "FieldValueInvalid", 'Invalid value: "%s": %s' % (name, err))])
            key = self.key_of(res, ns, name)
            if ns is not None:
                nsent = store.objs["namespaces"].get(("", ns))
                if nsent is None:
                    if raw:
                        self._create_namespace(ns)
                    else:
                        raise not_found(BY_GR["namespaces"], ns)
                elif nsent[0]["metadata"].get("deletionTimestamp") and not raw:
                    raise ApiError(403, "Forbidden", 'unable to create new content in namespace %s because it is being terminated' % ns,
                                   {"name": ns, "kind": "namespaces", "causes": [{"reason": "NamespaceTerminating",
                                    "message": 'namespace %s is being terminated' % ns, "field": "metadata.namespace"}]})
            if key in store.objs[res.gr]:
                raise already_exists(res, name)
            if not raw or not md.get("uid"):
                md["uid"] = str(uuid.uuid4())
            if not raw or not md.get("creationTimestamp"):
                md["creationTimestamp"] = self.clock.stamp()
            md.pop("resourceVersion", None)
            if not raw:
                md.pop("deletionTimestamp", None)
                md.pop("deletionGracePeriodSeconds", None)
                if res.status_reset == "drop":
                    obj.pop("status", None)
                elif isinstance(res.status_reset, dict):
                    obj["status"] = dict(res.status_reset)
            if res.generation:
                md["generation"] = md.get("generation", 1) if raw else 1
            else:
                md.pop("generation", None)
            if res.plural == "namespaces":
                md.setdefault("labels", {})["kubernetes.io/metadata.name"] = name
                obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
                obj.setdefault("status", {}).setdefault("phase", "Active")
            if res.plural == "pods" and not raw:
                obj.setdefault("spec", {})
            if dry:
                obj = ordered(obj)
                obj["metadata"]["resourceVersion"] = ""
                return obj
            return store.commit(res, key, "ADDED", obj, None)

    def _create_namespace(self, ns):
        res = BY_GR["namespaces"]
        obj = {"kind": "Namespace", "apiVersion": "v1",
               "metadata": {"name": ns, "uid": str(uuid.uuid4()), "creationTimestamp": self.clock.stamp(),
                            "labels": {"kubernetes.io/metadata.name": ns}},
               "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
        self.store.commit(res, ("", ns), "ADDED", obj, None)

    def _concurrent_writer(self, res, ns, name, path):
        """Apply a configured concurrent write to this object before the caller's write."""
        todo = []
        with self.faults.lock:
            for w in self.faults.writers:
                if w["until"] is not None and time.monotonic() >= w["until"]:
                    w["count"] = 0
                if w["count"] and w["armed"] and self.writer_matches(w, res, ns, name):
                    if w["count"] > 0:
                        w["count"] -= 1
                    if w["afterGet"]:
                        w["armed"] = False
                    todo.append(w)
        for w in todo:
            sub = "status" if w["path"].endswith("/status") else None
            try:
                self.patch(res, ns, name, sub, w["patchType"], w["patch"], dry=False, path=None)
                if w["until"] is not None:
                    # a busy writer: every write of its changes the object
                    self.writes_by_writer += 1
                    bump = {"metadata": {"annotations": {"test.dra-tools/concurrent-writes": str(self.writes_by_writer)}}}
                    self.patch(res, ns, name, None, "merge", bump, dry=False, path=None)
            except ApiError as e:  # the other writer failed: say so in the log, serve the request
                sys.stderr.write("apiserver: concurrentWriter on %s failed: %s\n" % (w["path"], e.message))

    def _finish_write(self, res, key, old, new, sub, dry, managed=None):
        """Common tail of update, patch and apply (managed: its metadata.managedFields). Holds the lock."""
        store = self.store
        md, omd = new["metadata"], old["metadata"]
        name = omd["name"]
        # preconditions carried by the object
        if md.get("uid") and md["uid"] != omd.get("uid"):
            raise conflict(res, name, "Precondition failed: UID in precondition: %s, UID in object meta: %s" % (md["uid"], omd.get("uid")))
        rv = md.get("resourceVersion")
        if rv not in (None, "") and rv != omd.get("resourceVersion"):
            raise conflict(res, name, MODIFIED_MSG)
        if md.get("name") and md["name"] != name:
            raise bad_request("the name of the object (%s) does not match the name on the URL (%s)" % (md["name"], name))
        if res.namespaced and md.get("namespace") and md["namespace"] != omd.get("namespace"):
            raise bad_request("the namespace of the provided object does not match the namespace sent on the request")
        if sub == "status":
            out = jcopy(old)
            if "status" in new:
                out["status"] = new["status"]
            else:
                out.pop("status", None)
            if managed is not None:
                out["metadata"]["managedFields"] = managed
            new = out
        else:
            if res.status:
                if "status" in old:
                    new["status"] = jcopy(old["status"])
                else:
                    new.pop("status", None)
            for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", "namespace", "name"):
                if k in omd:
                    md[k] = omd[k]
                else:
                    md.pop(k, None)
            md.pop("generateName", None) if "generateName" not in omd else md.__setitem__("generateName", omd["generateName"])
            if omd.get("deletionTimestamp"):
                added = [f for f in md.get("finalizers") or [] if f not in (omd.get("finalizers") or [])]
                if added:
                    raise invalid(res, name, [("metadata.finalizers", "FieldValueForbidden",
                                               "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers %s"
                                               % go_string_slice(added))])
            if res.plural in ("resourceclaims", "resourceclaimtemplates") and new.get("spec") != old.get("spec"):
                raise invalid(res, name, [("spec", "FieldValueInvalid", "Invalid value: field is immutable")])
            if res.plural == "namespaces":
                new["spec"] = jcopy(old.get("spec") or {})
            if res.generation:
                strip = lambda o: {k: v for k, v in o.items() if k not in ("metadata", "status", "kind", "apiVersion")}
                if strip(new) != strip(old):
                    md["generation"] = int(omd.get("generation") or 1) + 1
        if res.plural == "resourceclaims":
            errs = claim_status_errors(new, old)
            if errs:
                raise invalid(res, name, errs)
        md = new["metadata"]
        if not md.get("labels") and "labels" in md:
            del md["labels"]
        if not md.get("annotations") and "annotations" in md:
            del md["annotations"]
        if not md.get("finalizers") and "finalizers" in md:
            del md["finalizers"]
        cmp_new = dict(new, metadata=dict(md, resourceVersion=omd.get("resourceVersion")))
        if ordered(cmp_new) == old:
            return old  # nothing changed: no new resourceVersion, no event
        if dry:
            return ordered(cmp_new)
        if md.get("deletionTimestamp") and not md.get("finalizers"):
            return store.commit(res, key, "DELETED", None, ordered(cmp_new))
        return store.commit(res, key, "MODIFIED", new, old)

    def update(self, res, ns, name, sub, obj, dry=False, path=None):
        self._concurrent_writer(res, ns, name, path)
        store = self.store
        key = self.key_of(res, ns, name)
        with store.cond:
            ent = store.objs[res.gr].get(key)
            if ent is None:
                raise not_found(res, name)
            md = obj["metadata"]
            if md.get("name") and md["name"] != name:
                raise bad_request("the name of the object (%s) does not match the name on the URL (%s)" % (md["name"], name))
            if not md.get("name"):
                raise bad_request("name is required in the object when updating")
            return self._finish_write(res, key, ent[0], obj, sub, dry), False

    def patch(self, res, ns, name, sub, kind, patch, dry=False, path=None):
        if path is not None:
            self._concurrent_writer(res, ns, name, path)
        store = self.store
        key = self.key_of(res, ns, name)
        with store.cond:
            ent = store.objs[res.gr].get(key)
            if ent is None:
                raise not_found(res, name)
            cur = json.loads(ent[1])
            try:
                if kind == "json":
                    if not isinstance(patch, list):
                        raise kpatch.PatchError("json: cannot unmarshal object into Go value of type jsonpatch.Patch", 400)
                    new = kpatch.json_patch(cur, patch)
                elif kind == "merge":
                    if not isinstance(patch, dict):
                        raise kpatch.PatchError("json: cannot unmarshal %s into Go value of type map[string]interface {}" % type(patch).__name__, 400)
                    new = kpatch.merge_patch(cur, patch)
                else:
                    new = kpatch.strategic_merge_patch(cur, patch)
            except kpatch.PatchError as e:
                if e.code == 400:
                    raise bad_request(str(e))
                # upstream keeps only the generic text of NewGenericServerResponse(422, ...)
                raise ApiError(422, "Invalid", "the server rejected our request due to an error in our request", {})
            if not isinstance(new, dict) or not isinstance(new.get("metadata"), dict):
                raise ApiError(422, "Invalid", "patched object is not a Kubernetes object", {})
            if new.get("kind") != res.kind or new.get("apiVersion") != res.api_version(res.version):
                raise bad_request("the patch changes the kind or apiVersion of the object")
            return self._finish_write(res, key, ent[0], new, sub, dry)

    def apply(self, res, ns, name, sub, cfg, manager, force, dry=False, path=None):
        """Server-side apply: (object, created)."""
        if path is not None:
            self._concurrent_writer(res, ns, name, path)
        store = self.store
        key = self.key_of(res, ns, name)
        api_version = res.api_version(res.version)
        with store.cond:
            ent = store.objs[res.gr].get(key)
            if ent is not None:
                cur = json.loads(ent[1])
                try:
                    new = kssa.apply(cur, cfg, manager, force, sub, api_version, self.clock.stamp())
                except kssa.ApplyError as e:  # errors.NewApplyConflict: the message as it is
                    raise ApiError(e.code, e.reason, str(e), {"causes": e.causes})
                rv = (cfg.get("metadata") or {}).get("resourceVersion")
                if rv:
                    new["metadata"]["resourceVersion"] = rv
                return self._finish_write(res, key, ent[0], new, sub, dry,
                                          managed=new["metadata"].get("managedFields")), False
        if sub:
            raise not_found(res, name)
        base = {"apiVersion": api_version, "kind": res.kind, "metadata": {"name": name}}
        if res.namespaced:
            base["metadata"]["namespace"] = ns
        new = kssa.apply(base, cfg, manager, force, None, api_version, self.clock.stamp())
        return self.create(res, ns, new, dry=dry), True

    def delete(self, res, ns, name, opts, path=None):
        if path is not None:
            self._concurrent_writer(res, ns, name, path)
        store = self.store
        key = self.key_of(res, ns, name)
        dry = bool(opts.get("dryRun"))
        if dry and opts["dryRun"] != ["All"]:
            raise bad_request('dryRun: Unsupported value: "%s": supported values: "All"' % opts["dryRun"][0])
        with store.cond:
            ent = store.objs[res.gr].get(key)
            if ent is None:
                raise not_found(res, name)
            old = ent[0]
            omd = old["metadata"]
            pre = opts.get("preconditions") or {}
            if pre.get("uid") and pre["uid"] != omd.get("uid"):
                raise conflict(res, name, "Precondition failed: UID in precondition: %s, UID in object meta: %s" % (pre["uid"], omd.get("uid")))
            if pre.get("resourceVersion") and pre["resourceVersion"] != omd.get("resourceVersion"):
                raise conflict(res, name, "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s"
                               % (pre["resourceVersion"], omd.get("resourceVersion")))
            grace = opts.get("gracePeriodSeconds")
            if res.plural == "pods" and self.args.graceful_pods and grace != 0 \
                    and (old.get("spec") or {}).get("nodeName") \
                    and (old.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
                # graceful deletion: the kubelet (here: a later DELETE with gracePeriodSeconds=0) finishes it
                if omd.get("deletionTimestamp"):
                    return old, False
                if grace is None:
                    grace = int((old.get("spec") or {}).get("terminationGracePeriodSeconds", 30))
                new = jcopy(old)
                new["metadata"]["deletionTimestamp"] = self.clock.stamp(self.clock.now() + grace)
                new["metadata"]["deletionGracePeriodSeconds"] = grace
                if dry:
                    return new, False
                return store.commit(res, key, "MODIFIED", new, old), False
            if omd.get("finalizers"):
                if omd.get("deletionTimestamp"):
                    return old, False
                new = jcopy(old)
                new["metadata"]["deletionTimestamp"] = self.clock.stamp()
                new["metadata"]["deletionGracePeriodSeconds"] = 0
                if res.generation:
                    new["metadata"]["generation"] = int(omd.get("generation") or 1) + 1
                if res.plural == "namespaces":
                    new.setdefault("status", {})["phase"] = "Terminating"
                if dry:
                    return new, False
                return store.commit(res, key, "MODIFIED", new, old), False
            if dry:
                return old, True
            if res.plural == "namespaces":
                for r in ALL_RES:
                    if r.namespaced:
                        for k in sorted(k for k in store.objs[r.gr] if k[0] == name):
                            o = store.objs[r.gr][k][0]
                            if o["metadata"].get("finalizers"):
                                if not o["metadata"].get("deletionTimestamp"):
                                    n2 = jcopy(o)
                                    n2["metadata"]["deletionTimestamp"] = self.clock.stamp()
                                    n2["metadata"]["deletionGracePeriodSeconds"] = 0
                                    store.commit(r, k, "MODIFIED", n2, o)
                            else:
                                store.commit(r, k, "DELETED", None, o)
            return store.commit(res, key, "DELETED", None, old), True

    # ----- test helpers
    def load_objects(self, docs, source):
        n = 0
        for i, d in enumerate(docs):
            if d is None:
                continue
            if not isinstance(d, dict):
                raise ValueError("%s: document %d is not an object" % (source, i + 1))
            if d.get("kind", "").endswith("List") and isinstance(d.get("items"), list):
                n += self.load_objects(d["items"], source)
                continue
            av = d.get("apiVersion", "")
            group = av.split("/")[0] if "/" in av else ""
            version = av.split("/")[-1]
            res = BY_KIND.get((group, d.get("kind")))
            if res is None:
                raise ValueError("%s: document %d: unknown kind %s %s" % (source, i + 1, av, d.get("kind")))
            if group == DRA_GROUP and version not in ("v1", "v1beta2"):
                raise ValueError("%s: document %d: %s is not stored by this server (use v1 or v1beta2)" % (source, i + 1, av))
            d = self.to_storage(d)  # freshly parsed: no copy needed
            d.setdefault("metadata", {})
            try:
                self.create(res, d["metadata"].get("namespace"), d, raw=True)
            except ApiError as e:
                raise ValueError("%s: document %d: %s" % (source, i + 1, e.message))
            n += 1
        return n

    def wipe(self):
        with self.store.cond:
            for r in ALL_RES:
                for k in sorted(self.store.objs[r.gr]):
                    if r.plural == "namespaces" and k[1] in DEFAULT_NAMESPACES:
                        continue
                    self.store.commit(r, k, "DELETED", None, self.store.objs[r.gr][k][0])

    def burst(self, body):
        res = BY_GR.get(body.get("resource", "")) or next((r for r in ALL_RES if r.plural == body.get("resource")), None)
        if res is None:
            raise bad_request("unknown resource %r" % body.get("resource"))
        count = int(body.get("count", 1))
        ns = body.get("namespace")
        store = self.store
        with store.cond:
            first = store.rv + 1
            if body.get("object"):
                tmpl = self.to_storage(jcopy(body["object"]))
                base = tmpl.get("metadata", {}).get("name") or res.singular
                for i in range(count):
                    o = jcopy(tmpl)
                    o.setdefault("metadata", {})["name"] = "%s-%d" % (base, i)
                    self.create(res, o["metadata"].get("namespace") or ns, o, raw=True)
            else:
                keys = sorted(k for k in store.objs[res.gr] if ns is None or k[0] == ns)
                if not keys:
                    raise bad_request("no %s to modify" % res.plural)
                for i in range(count):
                    k = keys[i % len(keys)]
                    old = store.objs[res.gr][k][0]
                    new = dict(old)
                    md = dict(old["metadata"])
                    md["annotations"] = dict(md.get("annotations") or {}, **{"dra-tools.test/burst": str(i)})
                    new["metadata"] = md
                    store.commit(res, k, "MODIFIED", new, old)
            return {"count": count, "firstResourceVersion": str(first), "lastResourceVersion": str(store.rv)}


DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


RESERVED_FOR_MAX = 256  # resource.ResourceClaimReservedForMaxSize


def claim_status_errors(new, old):
    """The status invariants of ValidateClaimStatusUpdate (pkg/apis/resource/validation)."""
    errs = []
    st, ost = new.get("status") or {}, old.get("status") or {}
    rf = st.get("reservedFor") or []
    if not isinstance(rf, list):
        return [("status.reservedFor", "FieldValueTypeInvalid", "Invalid value: must be a list")]
    if len(rf) > RESERVED_FOR_MAX:
        errs.append(("status.reservedFor", "FieldValueTooMany", "Too many: %d: must have at most %d items" % (len(rf), RESERVED_FOR_MAX)))
    seen = set()
    for i, c in enumerate(rf):
        p = "status.reservedFor[%d]" % i
        if not isinstance(c, dict):
            errs.append((p, "FieldValueTypeInvalid", "Invalid value: must be an object"))
            continue
        for f in ("resource", "name", "uid"):
            if not c.get(f):
                errs.append(("%s.%s" % (p, f), "FieldValueRequired", "Required value"))
        if c.get("uid"):
            if c["uid"] in seen:
                errs.append((p, "FieldValueDuplicate", 'Duplicate value: "%s"' % c["uid"]))
            seen.add(c["uid"])
    if rf:
        if not st.get("allocation"):
            errs.append(("status.reservedFor", "FieldValueForbidden", "Forbidden: may not be specified when `allocated` is not set"))
        elif (new.get("metadata") or {}).get("deletionTimestamp"):
            olds = {json.dumps(c, sort_keys=True) for c in ost.get("reservedFor") or []}
            if any(json.dumps(c, sort_keys=True) not in olds for c in rf):
                errs.append(("status.reservedFor", "FieldValueForbidden",
                             "Forbidden: new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"))
    if ost.get("allocation") and st.get("allocation") and st["allocation"] != ost["allocation"]:
        errs.append(("status.allocation", "FieldValueInvalid", "Invalid value: field is immutable"))
    return errs


def go_string_slice(xs):
    return "[]string{%s}" % ", ".join(json.dumps(x) for x in xs)


# ============================================================ certificates and files

def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_certs(d, client_users):
    ca_crt, ca_key = os.path.join(d, "ca.crt"), os.path.join(d, "ca.key")
    if not os.path.exists(ca_crt):
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", ca_key, "-out", ca_crt, "-days", "3650", "-subj", "/CN=dra-tools-test-ca",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    if not os.path.exists(os.path.join(d, "server.crt")):
        issue(d, "server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    for name, groups in [("admin", ["system:masters"])] + list(client_users):
        fname = "admin" if name == "admin" else "user-" + re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        if not os.path.exists(os.path.join(d, fname + ".crt")):
            subj = "".join("/O=" + g for g in groups) + "/CN=" + name
            issue(d, fname, subj, "extendedKeyUsage=clientAuth\n")


def issue(d, fname, subj, ext):
    key, csr, crt = (os.path.join(d, fname + x) for x in (".key", ".csr", ".crt"))
    extf = os.path.join(d, fname + ".ext")
    with open(extf, "w") as f:
        f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n" + ext)
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
            "-out", csr, "-subj", subj)
    openssl("x509", "-req", "-in", csr, "-CA", os.path.join(d, "ca.crt"), "-CAkey", os.path.join(d, "ca.key"),
            "-CAcreateserial", "-out", crt, "-days", "3650", "-extfile", extf)
    os.unlink(csr)
    os.unlink(extf)


def b64file(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def write_atomic(path, text, mode=0o644):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def kubeconfig(server, ca_path, user_name, user_lines, ca_data=None):
    ca = ("    certificate-authority-data: %s\n" % ca_data if ca_data else
          "    certificate-authority: %s\n" % ca_path if ca_path else "")
    return ("apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: %s\n%s"
            "contexts:\n- name: test\n  context:\n    cluster: test\n    user: %s\ncurrent-context: test\n"
            "preferences: {}\nusers:\n- name: %s\n  user:\n%s") % (server, ca, user_name, user_name, user_lines)


def read_docs(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    s = text.lstrip()
    if s.startswith("{") or s.startswith("["):
        try:
            v = json.loads(text)
            return v if isinstance(v, list) else [v]
        except ValueError:
            docs = []
            for n, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    try:
                        docs.append(json.loads(line))
                    except ValueError as e:
                        raise ValueError("%s:%d: %s" % (path, n, e))
            return docs
    try:
        return kyaml.load_all(text)
    except kyaml.YAMLError as e:
        raise ValueError("%s: %s" % (path, e))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, addr, app, ctx):
        self.app, self.ctx = app, ctx
        super().__init__(addr, Handler)

    def finish_request(self, request, client_address):
        # TLS handshake in the connection's own thread, never in the accept loop.
        request.settimeout(30)
        try:
            conn = self.ctx.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as e:
            if self.app.verbose:
                sys.stderr.write("apiserver: TLS handshake from %s failed: %s\n" % (client_address, e))
            return
        conn.settimeout(None)
        try:
            self.RequestHandlerClass(conn, client_address, self)
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def handle_error(self, request, client_address):
        if self.app.verbose:
            super().handle_error(request, client_address)


class PlainServer(ThreadingHTTPServer):
    """--plain-http: the same API over plain http, for tests of what clients send there."""
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128
    plain = True

    def __init__(self, addr, app):
        self.app = app
        super().__init__(addr, Handler)

    def handle_error(self, request, client_address):
        if self.app.verbose:
            super().handle_error(request, client_address)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Stand-in Kubernetes API server for the dra-tools tests.")
    ap.add_argument("--dir", required=True, help="state directory (certificates, port, pid, kubeconfigs)")
    ap.add_argument("--load", action="append", default=[], help="YAML/JSON/JSON Lines objects to store at start")
    ap.add_argument("--rbac", action="append", default=[], help="users, tokens and RBAC roles/bindings")
    ap.add_argument("--server-version", default="v1.37.2", help="the release /version reports (default v1.37.2)")
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    ap.add_argument("--history", type=int, default=200000, help="watch events kept before versions expire")
    ap.add_argument("--bookmark-interval", type=float, default=5.0, help="seconds between BOOKMARK events")
    ap.add_argument("--min-request-timeout", type=float, default=1800.0,
                    help="watch length when the client gives no timeoutSeconds (randomized up to twice this)")
    ap.add_argument("--dra-versions", default="v1", help="resource.k8s.io versions served, preferred first "
                    "(v1, v1beta2; objects are stored as v1)")
    ap.add_argument("--now", help="pin the clock (RFC 3339, e.g. 2025-01-01T00:00:00Z) for timestamps and ages")
    ap.add_argument("--token", help="admin bearer token (default: random)")
    ap.add_argument("--graceful-pods", action="store_true", help="deleting a scheduled, running pod only sets "
                    "deletionTimestamp; a DELETE with gracePeriodSeconds=0 removes it (as the kubelet does)")
    ap.add_argument("--plain-http", action="store_true", help="also serve plain http (no authentication, every "
                    "request is the admin's) on another port: DIR/http-port, DIR/kubeconfig-http, and the headers of "
                    "every request there in DIR/http-requests.jsonl")
    ap.add_argument("-v", "--verbose", action="store_true", help="log requests to stderr")
    args = ap.parse_args(argv)
    for v in args.dra_versions.split(","):
        if v not in ("v1", "v1beta2"):
            ap.error("--dra-versions: unsupported version %s" % v)
    if args.now and parse_stamp(args.now) is None:
        ap.error("--now: not an RFC 3339 time like 2025-01-01T00:00:00Z")
    d = os.path.abspath(args.dir)
    os.makedirs(d, exist_ok=True)
    for f in ("port", "pid"):
        try:
            os.unlink(os.path.join(d, f))
        except FileNotFoundError:
            pass

    app = App(args)
    tok_path = os.path.join(d, "admin.token")
    if args.token:
        token = args.token
    elif os.path.exists(tok_path):
        token = open(tok_path).read().strip()
    else:
        token = base64.b32encode(os.urandom(20)).decode().lower()
    app.auth = Auth(token)
    try:
        rbac_docs = []
        for f in args.rbac:
            rbac_docs += [x for x in read_docs(f) if isinstance(x, dict)]
        if args.rbac:
            app.auth.load(rbac_docs)
        make_certs(d, app.auth.cert_users)
        with app.store.cond:
            for ns in DEFAULT_NAMESPACES:
                app._create_namespace(ns)
        t0 = time.monotonic()
        n = 0
        for f in args.load:
            n += app.load_objects(read_docs(f), f)
        if args.verbose and args.load:
            sys.stderr.write("apiserver: loaded %d objects in %.2fs\n" % (n, time.monotonic() - t0))
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        msg = e.stderr.decode() if isinstance(e, subprocess.CalledProcessError) and e.stderr else str(e)
        sys.stderr.write("apiserver: %s\n" % msg)
        return 2

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(d, "server.crt"), os.path.join(d, "server.key"))
    ctx.load_verify_locations(os.path.join(d, "ca.crt"))
    ctx.verify_mode = ssl.CERT_OPTIONAL
    ctx.set_alpn_protocols(["http/1.1"])
    httpd = Server(("127.0.0.1", args.port), app, ctx)
    port = httpd.server_address[1]
    server = "https://127.0.0.1:%d" % port
    ca = os.path.join(d, "ca.crt")
    write_atomic(tok_path, token + "\n", 0o600)
    write_atomic(os.path.join(d, "kubeconfig"), kubeconfig(server, ca, "admin", "    token: %s\n" % token), 0o600)
    write_atomic(os.path.join(d, "kubeconfig-cert"), kubeconfig(
        server, ca, "admin-cert", "    client-certificate-data: %s\n    client-key-data: %s\n" % (
            b64file(os.path.join(d, "admin.crt")), b64file(os.path.join(d, "admin.key"))), ca_data=b64file(ca)), 0o600)
    for t, u in app.auth.tokens.items():
        if u.name != "admin":
            fn = "kubeconfig-" + re.sub(r"[^A-Za-z0-9_.-]", "_", u.name)
            write_atomic(os.path.join(d, fn), kubeconfig(server, ca, u.name, "    token: %s\n" % t), 0o600)
    for name, _ in app.auth.cert_users:
        fn = "user-" + re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        write_atomic(os.path.join(d, "kubeconfig-" + fn.replace("user-", "") + "-cert"), kubeconfig(
            server, ca, name, "    client-certificate: %s\n    client-key: %s\n" % (
                os.path.join(d, fn + ".crt"), os.path.join(d, fn + ".key"))), 0o600)
    plain = None
    if args.plain_http:
        plain = PlainServer(("127.0.0.1", 0), app)
        app.plain_log = os.path.join(d, "http-requests.jsonl")
        open(app.plain_log, "wb").close()
        pport = plain.server_address[1]
        # the admin token, which a client must not send over plain http
        write_atomic(os.path.join(d, "kubeconfig-http"), kubeconfig(
            "http://127.0.0.1:%d" % pport, None, "admin", "    token: %s\n" % token), 0o600)
        write_atomic(os.path.join(d, "http-port"), "%d\n" % pport)
        threading.Thread(target=plain.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    write_atomic(os.path.join(d, "pid"), "%d\n" % os.getpid())
    write_atomic(os.path.join(d, "port"), "%d\n" % port)

    def stop(signum, frame):
        with app.store.cond:
            app.store.stopping = True
            app.store.cond.notify_all()
        threading.Thread(target=httpd.shutdown, daemon=True).start()
        if plain is not None:
            threading.Thread(target=plain.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        httpd.server_close()
        for f in ("port", "pid", "http-port"):
            try:
                os.unlink(os.path.join(d, f))
            except FileNotFoundError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
