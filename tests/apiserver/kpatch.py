"""Label and field selectors and the three patch formats of the API server.

Selector syntax and patch semantics follow k8s.io/apimachinery
(pkg/labels/selector.go, pkg/fields/selector.go) and RFC 6902 / RFC 7386;
the strategic merge patch covers maps, merge keys of lists the DRA tools
touch, primitive-list merges and the $patch / $deleteFromPrimitiveList /
$setElementOrder / $retainKeys directives.
"""

import json
import re


def jcopy(v):
    if isinstance(v, dict):
        return {k: jcopy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [jcopy(x) for x in v]
    return v


class SelectorError(ValueError):
    pass


class PatchError(ValueError):
    """A patch that cannot be applied. code 400 (malformed) or 422 (failed)."""

    def __init__(self, msg, code=422):
        super().__init__(msg)
        self.code = code


# ---------------------------------------------------------------- selectors

_LABEL_TOKEN = re.compile(r"\s*(!=|==|=|!|\(|\)|,|[^\s!=(),]+)")
_QNAME = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                    r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_LVALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def parse_label_selector(s):
    """Return a list of requirements (key, op, values); op in
    '=', '!=', 'in', 'notin', 'exists', '!'. Raises SelectorError."""
    toks = _LABEL_TOKEN.findall(s)
    if "".join(toks).replace(" ", "") != re.sub(r"\s", "", s):
        raise SelectorError("unable to parse requirement: invalid selector " + json.dumps(s))
    reqs = []
    i = 0

    def need(cond, msg):
        if not cond:
            raise SelectorError("unable to parse requirement: " + msg)

    while i < len(toks):
        t = toks[i]
        if t == "!":
            i += 1
            need(i < len(toks), "missing key after '!'")
            key = toks[i]
            _check_key(key)
            reqs.append((key, "!", []))
            i += 1
        else:
            key = t
            need(key not in ("=", "==", "!=", "(", ")", ","), "found '%s', expected: identifier" % key)
            _check_key(key)
            i += 1
            if i >= len(toks) or toks[i] == ",":
                reqs.append((key, "exists", []))
            else:
                op = toks[i]
                i += 1
                if op in ("=", "==", "!="):
                    v = ""
                    if i < len(toks) and toks[i] not in (",",):
                        v = toks[i]
                        i += 1
                    need(_LVALUE.match(v) and len(v) <= 63, "values[0]: Invalid value: %s" % json.dumps(v))
                    reqs.append((key, "!=" if op == "!=" else "=", [v]))
                elif op in ("in", "notin"):
                    need(i < len(toks) and toks[i] == "(", "found '%s', expected: '('" % (toks[i] if i < len(toks) else ""))
                    i += 1
                    vals = []
                    while True:
                        need(i < len(toks), "found '', expected: ')'")
                        if toks[i] == ")":
                            i += 1
                            break
                        if toks[i] == ",":
                            i += 1
                            continue
                        need(_LVALUE.match(toks[i]), "invalid label value: %s" % json.dumps(toks[i]))
                        vals.append(toks[i])
                        i += 1
                    reqs.append((key, op, vals))
                else:
                    raise SelectorError("unable to parse requirement: found '%s', expected: in, notin, =, ==, !=, gt, lt" % op)
        if i < len(toks):
            need(toks[i] == ",", "found '%s', expected: ','" % toks[i])
            i += 1
    return reqs


def _check_key(key):
    if not _QNAME.match(key) or len(key.split("/")[-1]) > 63:
        raise SelectorError("unable to parse requirement: invalid label key %s" % json.dumps(key))


def label_match(reqs, labels):
    labels = labels or {}
    for key, op, vals in reqs:
        has = key in labels
        v = labels.get(key)
        if op == "=" and (not has or v != vals[0]):
            return False
        if op == "!=" and has and v == vals[0]:
            return False
        if op == "in" and (not has or v not in vals):
            return False
        if op == "notin" and has and v in vals:
            return False
        if op == "exists" and not has:
            return False
        if op == "!" and has:
            return False
    return True


def parse_field_selector(s):
    """Return [(field, op, value)] with op '=' or '!='."""
    out = []
    if not s.strip():
        return out
    for part in _split_unescaped(s, ","):
        m = re.match(r"^([^=!]+)(==|=|!=)(.*)$", part)
        if not m:
            raise SelectorError("invalid selector: '%s'; can't understand '%s'" % (s, part))
        out.append((m.group(1).strip(), "!=" if m.group(2) == "!=" else "=", _unescape(m.group(3))))
    return out


def _split_unescaped(s, sep):
    parts, cur, esc = [], [], False
    for c in s:
        if esc:
            cur.append("\\" + c)
            esc = False
        elif c == "\\":
            esc = True
        elif c == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def _unescape(v):
    return re.sub(r"\\(.)", r"\1", v)


def field_value(obj, path):
    cur = obj
    for p in path.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(p)
    if cur is None:
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


def field_match(reqs, obj):
    for f, op, v in reqs:
        have = field_value(obj, f)
        if (have == v) != (op == "="):
            return False
    return True


# ---------------------------------------------------------------- JSON merge patch (RFC 7386)

def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return jcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


# ---------------------------------------------------------------- JSON patch (RFC 6902)

def _ptr(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError("invalid JSON pointer: %s" % json.dumps(path), 400)
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _walk(doc, parts, path):
    cur = doc
    for p in parts:
        if isinstance(cur, dict):
            if p not in cur:
                raise PatchError("doc is missing path: \"%s\": missing value" % path)
            cur = cur[p]
        elif isinstance(cur, list):
            i = _index(p, len(cur), path)
            cur = cur[i]
        else:
            raise PatchError("doc is missing path: \"%s\": missing value" % path)
    return cur


def _index(p, n, path, allow_end=False):
    if p == "-" and allow_end:
        return n
    if not re.match(r"^(0|[1-9][0-9]*)$", p):
        raise PatchError("Unable to access invalid index: %s: invalid index referenced" % p)
    i = int(p)
    if i > n or (i == n and not allow_end):
        raise PatchError("Unable to access invalid index: %d: invalid index referenced" % i)
    return i


def _get(doc, path):
    return _walk(doc, _ptr(path), path)


def _add(doc, path, value):
    parts = _ptr(path)
    if not parts:
        return value
    parent = _walk(doc, parts[:-1], path)
    last = parts[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(last, len(parent), path, True), value)
    else:
        raise PatchError("add operation does not apply: doc is missing path: \"%s\": missing value" % path)
    return doc


def _remove(doc, path):
    parts = _ptr(path)
    if not parts:
        raise PatchError("unable to remove the whole document")
    parent = _walk(doc, parts[:-1], path)
    last = parts[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise PatchError("remove operation does not apply: doc is missing path: \"%s\": missing value" % path)
        return parent.pop(last)
    if isinstance(parent, list):
        try:
            i = _index(last, len(parent), path)
        except PatchError:
            raise PatchError("remove operation does not apply: doc is missing path: \"%s\": missing value" % path)
        return parent.pop(i)
    raise PatchError("remove operation does not apply: doc is missing path: \"%s\": missing value" % path)


def json_patch(doc, ops):
    if not isinstance(ops, list):
        raise PatchError("json: cannot unmarshal object into Go value of type jsonpatch.Patch", 400)
    doc = jcopy(doc)
    for op in ops:
        if not isinstance(op, dict) or not isinstance(op.get("op"), str):
            raise PatchError("Unexpected kind: %s" % json.dumps(op), 400)
        kind = op["op"]
        path = op.get("path")
        if not isinstance(path, str):
            raise PatchError("%s operation missing path" % kind)
        if kind == "add":
            if "value" not in op:
                raise PatchError("add operation missing value")
            doc = _add(doc, path, jcopy(op["value"]))
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            if "value" not in op:
                raise PatchError("replace operation missing value")
            parts = _ptr(path)
            if not parts:
                doc = jcopy(op["value"])
                continue
            try:
                _get(doc, path)
            except PatchError:
                raise PatchError("replace operation does not apply: doc is missing key: %s: missing value" % path)
            parent = _walk(doc, parts[:-1], path)
            if isinstance(parent, list):
                parent[_index(parts[-1], len(parent), path)] = jcopy(op["value"])
            else:
                parent[parts[-1]] = jcopy(op["value"])
        elif kind in ("move", "copy"):
            frm = op.get("from")
            if not isinstance(frm, str):
                raise PatchError("%s operation missing from" % kind)
            if kind == "move":
                v = _remove(doc, frm)
            else:
                v = jcopy(_get(doc, frm))
            doc = _add(doc, path, v)
        elif kind == "test":
            try:
                have = _get(doc, path)
            except PatchError:
                have = None
                if "value" in op and op["value"] is not None:
                    raise PatchError("testing value %s failed: test failed" % path)
            if have != op.get("value") or type(have) is bool and type(op.get("value")) is not bool:
                raise PatchError("testing value %s failed: test failed" % path)
        else:
            raise PatchError("Unexpected kind: %s" % kind)
    return doc


# ---------------------------------------------------------------- strategic merge patch

# Merge keys of lists (patchStrategy:"merge") in the kinds this server serves.
MERGE_KEYS = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
    "volumes": "name", "env": "name", "volumeMounts": "mountPath", "ports": "containerPort",
    "conditions": "type", "ownerReferences": "uid", "reservedFor": "uid",
    "resourceClaims": "name", "imagePullSecrets": "name", "tolerations": None,
    "containerStatuses": None, "addresses": "type", "taints": "key",
}
# Lists of primitives merged as sets.
PRIMITIVE_MERGE = {"finalizers"}


def strategic_merge_patch(target, patch):
    if not isinstance(patch, dict):
        raise PatchError("strategic merge patch must be a JSON object", 400)
    return _smp_map(target if isinstance(target, dict) else {}, patch)


def _smp_map(target, patch):
    directive = patch.get("$patch")
    if directive == "replace":
        p = {k: v for k, v in patch.items() if k != "$patch"}
        return jcopy(p)
    if directive == "delete":
        return None
    if directive is not None:
        raise PatchError("Unknown patch type: %s" % directive, 400)
    out = dict(target)
    retain = patch.get("$retainKeys")
    for k, v in patch.items():
        if k.startswith("$setElementOrder/") or k == "$retainKeys":
            continue
        if k.startswith("$deleteFromPrimitiveList/"):
            name = k.split("/", 1)[1]
            if isinstance(out.get(name), list) and isinstance(v, list):
                out[name] = [x for x in out[name] if x not in v]
            continue
        if v is None:
            out.pop(k, None)
            continue
        old = out.get(k)
        if isinstance(v, dict):
            r = _smp_map(old if isinstance(old, dict) else {}, v)
            if r is None:
                out.pop(k, None)
            else:
                out[k] = r
        elif isinstance(v, list) and isinstance(old, list):
            out[k] = _smp_list(k, old, v)
        elif isinstance(v, list):
            out[k] = [x for x in jcopy(v) if not (isinstance(x, dict) and "$patch" in x)]
        else:
            out[k] = jcopy(v)
    if isinstance(retain, list):
        out = {k: v for k, v in out.items() if k in retain}
    return out


def _smp_list(name, old, patch):
    if name in PRIMITIVE_MERGE:
        out = list(old)
        for x in patch:
            if x not in out:
                out.append(x)
        return out
    key = MERGE_KEYS.get(name)
    if not key or not all(isinstance(x, dict) for x in old + patch):
        if len(patch) == 1 and isinstance(patch[0], dict) and patch[0].get("$patch") == "replace":
            return []
        return jcopy(patch)
    out = [dict(x) for x in old]
    for p in patch:
        if p.get("$patch") == "replace":
            return [jcopy(x) for x in patch if x.get("$patch") != "replace"]
        if key not in p:
            raise PatchError("map: %s does not contain declared merge key: %s" % (json.dumps(p), key), 400)
        idx = next((i for i, x in enumerate(out) if x.get(key) == p[key]), None)
        if p.get("$patch") == "delete":
            if idx is not None:
                out.pop(idx)
            continue
        if idx is None:
            out.append(jcopy(p))
        else:
            out[idx] = _smp_map(out[idx], p)
    return out
