"""Server-side apply (PATCH with application/apply-patch+yaml) as the API server does it.

Semantics follow sigs.k8s.io/structured-merge-diff (merge.Updater.Apply) and
k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager for the part the DRA
tools use (a controller applying pod status with force, as
pkg/controller/resourceclaim/controller.go does), with field ownership kept in
metadata.managedFields (FieldsV1) for appliers:
  - the applied configuration is merged into the object: maps field by field,
    list-maps (listType=map) element by element on their keys, sets
    (listType=set) as sets, every other list atomically;
  - a field another applier owns with a different value is a conflict (409,
    "Apply failed with N conflict(s): conflict with "M" using v1: PATH")
    unless force=true, which takes the field over;
  - fields the manager applied before and leaves out now are removed unless
    another applier still owns them.
Only Apply operations are tracked (writes by other verbs record no owners).
"""

import json

from kpatch import jcopy

# listType=map keys (the +listMapKey of the Go types) of the lists the kinds here carry.
LIST_MAP_KEYS = {
    "containers": ("name",), "initContainers": ("name",), "ephemeralContainers": ("name",),
    "volumes": ("name",), "env": ("name",), "volumeMounts": ("mountPath",),
    "ports": ("containerPort", "protocol"), "conditions": ("type",), "ownerReferences": ("uid",),
    "reservedFor": ("uid",), "resourceClaims": ("name",), "resourceClaimStatuses": ("name",),
    "imagePullSecrets": ("name",), "taints": ("key", "effect"), "addresses": ("type",),
    "containerStatuses": ("name",), "initContainerStatuses": ("name",),
}
SETS = {"finalizers"}


class ApplyError(ValueError):
    def __init__(self, code, reason, msg, causes=()):
        super().__init__(msg)
        self.code, self.reason, self.causes = code, reason, list(causes)


def _key_of(name, item):
    keys = LIST_MAP_KEYS.get(name)
    if not keys or not isinstance(item, dict) or keys[0] not in item:
        return None
    return {k: item[k] for k in keys if k in item}


def _kstr(k):
    return "k:" + json.dumps(k, separators=(",", ":"), sort_keys=True)


def fields_of(cfg):
    """FieldsV1 set of an applied configuration (nested dict; leaves are {})."""
    out = {}
    if isinstance(cfg, dict):
        for k, v in cfg.items():
            sub = {}
            if isinstance(v, dict):
                sub = fields_of(v)
            elif isinstance(v, list) and k in LIST_MAP_KEYS:
                sub["."] = {}
                for it in v:
                    key = _key_of(k, it)
                    if key is not None:
                        el = fields_of(it)
                        el["."] = {}
                        sub[_kstr(key)] = el
            elif isinstance(v, list) and k in SETS:
                sub["."] = {}
                for it in v:
                    sub["v:" + json.dumps(it, separators=(",", ":"))] = {}
            out["f:" + k] = sub
    return out


def _paths(fs, prefix=()):
    """Leaf paths of a FieldsV1 set."""
    for k, v in fs.items():
        if k == ".":
            continue
        p = prefix + (k,)
        leaves = [x for x in v if x != "."]
        if not leaves:
            yield p
        else:
            yield from _paths(v, p)


def _get(obj, path):
    """The value at a FieldsV1 path, or a sentinel when absent."""
    cur = obj
    last = None
    for el in path:
        if el.startswith("f:"):
            last = el[2:]
            if not isinstance(cur, dict) or last not in cur:
                return _ABSENT
            cur = cur[last]
        elif el.startswith("k:"):
            key = json.loads(el[2:])
            if not isinstance(cur, list):
                return _ABSENT
            cur = next((x for x in cur if isinstance(x, dict) and all(x.get(a) == b for a, b in key.items())), _ABSENT)
            if cur is _ABSENT:
                return cur
        elif el.startswith("v:"):
            v = json.loads(el[2:])
            return v if isinstance(cur, list) and v in cur else _ABSENT
    return cur


_ABSENT = object()


def _path_str(path):
    out = ""
    for el in path:
        if el.startswith("f:"):
            out += "." + el[2:]
        elif el.startswith("k:"):
            key = json.loads(el[2:])
            out += "[" + ",".join('%s=%s' % (a, json.dumps(b)) for a, b in sorted(key.items())) + "]"
        elif el.startswith("v:"):
            out += "[%s]" % el[2:]
    return out


def _merge(cur, cfg, name=None):
    if isinstance(cfg, dict):
        out = dict(cur) if isinstance(cur, dict) else {}
        for k, v in cfg.items():
            out[k] = _merge(out.get(k), v, k)
        return out
    if isinstance(cfg, list) and name in LIST_MAP_KEYS and isinstance(cur, list):
        out = [jcopy(x) for x in cur]
        for it in cfg:
            key = _key_of(name, it)
            idx = None if key is None else next(
                (i for i, x in enumerate(out) if _key_of(name, x) == key), None)
            if idx is None:
                out.append(jcopy(it))
            else:
                out[idx] = _merge(out[idx], it, None)
        return out
    if isinstance(cfg, list) and name in SETS and isinstance(cur, list):
        return list(cur) + [x for x in cfg if x not in cur]
    return jcopy(cfg)


def _remove(obj, path):
    """Remove the field at path (a FieldsV1 path) from obj, pruning emptied parents."""
    if not path:
        return
    el, rest = path[0], path[1:]
    if el.startswith("f:"):
        k = el[2:]
        if not isinstance(obj, dict) or k not in obj:
            return
        if not rest:
            del obj[k]
            return
        _remove(obj[k], rest)
        if obj[k] in ({}, []):
            del obj[k]
    elif el.startswith("k:"):
        key = json.loads(el[2:])
        if not isinstance(obj, list):
            return
        for i, x in enumerate(obj):
            if isinstance(x, dict) and all(x.get(a) == b for a, b in key.items()):
                if not rest:
                    obj.pop(i)
                elif not (rest[0].startswith("f:") and rest[0][2:] in key):  # keys stay with their element
                    _remove(x, rest)
                return
    elif el.startswith("v:"):
        v = json.loads(el[2:])
        if isinstance(obj, list) and v in obj:
            obj.remove(v)


def apply(cur, cfg, manager, force, sub, api_version, now):
    """Apply cfg (the applied configuration) to cur as manager.  sub: "status" or
    None; only that part of the object changes.  Returns the new object."""
    managed = [m for m in ((cur.get("metadata") or {}).get("managedFields") or []) if isinstance(m, dict)]
    part = "status" if sub == "status" else None
    if part:
        cfg = {"status": cfg.get("status") or {}}
    else:
        cfg = {k: v for k, v in cfg.items() if k not in ("status", "apiVersion", "kind")}
        md = dict(cfg.get("metadata") or {})
        for k in ("name", "namespace", "resourceVersion", "uid", "creationTimestamp", "managedFields", "generation"):
            md.pop(k, None)
        if md:
            cfg["metadata"] = md
        else:
            cfg.pop("metadata", None)
    mine = fields_of(cfg)
    others = [m for m in managed if not (m.get("manager") == manager and m.get("operation") == "Apply"
                                        and m.get("subresource", None) == (sub or None))]
    prev = next((m for m in managed if m not in others), None)
    # conflicts: fields other appliers own, with another value
    conflicts = []
    for m in others:
        if m.get("operation") != "Apply":
            continue
        theirs = set(_paths(m.get("fieldsV1") or {}))
        for p in _paths(mine):
            if p in theirs and _get(cur, p) is not _ABSENT and _get(cur, p) != _get(cfg, p):
                conflicts.append((m.get("manager", ""), p))
    if conflicts and not force:
        n = len(conflicts)
        lines = ['conflict with "%s" using %s: %s' % (mg, api_version, _path_str(p)) for mg, p in conflicts]
        if n == 1:
            msg = "Apply failed with 1 conflict: " + lines[0]
        else:
            msg = "Apply failed with %d conflicts: %s" % (n, "\n".join(lines))
        causes = [{"reason": "FieldManagerConflict", "message": 'conflict with "%s" using %s' % (mg, api_version),
                   "field": _path_str(p)} for mg, p in conflicts]
        raise ApplyError(409, "Conflict", msg, causes)
    new = _merge(cur, cfg)
    # force: the others lose what was taken over
    taken = set(_paths(mine))
    kept = []
    for m in others:
        fs = m.get("fieldsV1") or {}
        if force and m.get("operation") == "Apply" and any(p in taken for p in _paths(fs)):
            remaining = [p for p in _paths(fs) if p not in taken]
            if not remaining:
                continue
            fs = _from_paths(remaining)
            m = dict(m, fieldsV1=fs)
        kept.append(m)
    # what this manager applied before and leaves out now goes, unless someone else holds it
    held = set()
    for m in kept:
        held |= set(_paths(m.get("fieldsV1") or {}))
    if prev:
        owned = taken | held
        for p in _paths(prev.get("fieldsV1") or {}):
            if any(q[:len(p)] == p for q in owned):  # still owned, or a map someone owns fields in
                continue
            # inside a list element nobody owns any more: the element goes whole
            cut = p
            for i in range(len(p) - 1, -1, -1):
                if p[i].startswith("k:"):
                    if not any(q[:i + 1] == p[:i + 1] for q in owned):
                        cut = p[:i + 1]
                    break
            _remove(new, cut)
    entry = {"manager": manager, "operation": "Apply", "apiVersion": api_version, "time": now,
             "fieldsType": "FieldsV1", "fieldsV1": mine}
    if sub:
        entry["subresource"] = sub
    new.setdefault("metadata", {})["managedFields"] = kept + ([entry] if mine else [])
    return new


def _from_paths(paths):
    out = {}
    for p in paths:
        cur = out
        for el in p:
            cur = cur.setdefault(el, {})
    return out
