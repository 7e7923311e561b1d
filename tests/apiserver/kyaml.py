"""A small YAML subset reader and writer for the test API server.

Reads what Kubernetes manifests use: block mappings and sequences, plain,
single- and double-quoted scalars, block scalars (| > with - and +), flow
collections on one line ([a, b], {a: 1}), comments and multi-document
streams (--- and ...). Anchors, aliases, tags and complex keys are refused
with a message naming the line. Scalars are typed as in YAML 1.2's core
schema (null, true/false, integers, floats); everything else is a string.
"""

import json
import re

__all__ = ["YAMLError", "load_all", "dump"]


class YAMLError(ValueError):
    pass


_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")


_PLAIN_FIRST = set("0123456789+-.~ntfTFN")


def _plain(s):
    if s and s[0] not in _PLAIN_FIRST:
        return s
    if s in ("", "~", "null", "Null", "NULL"):
        return None
    if s in ("true", "True", "TRUE"):
        return True
    if s in ("false", "False", "FALSE"):
        return False
    if _INT.match(s):
        return int(s)
    if _OCT.match(s):
        return int(s[2:], 8)
    if _HEX.match(s):
        return int(s[2:], 16)
    if _FLOAT.match(s):
        return float(s)
    if s in (".inf", "+.inf", ".Inf", "+.Inf"):
        return float("inf")
    if s in ("-.inf", "-.Inf"):
        return float("-inf")
    if s in (".nan", ".NaN"):
        return float("nan")
    return s


def _strip_comment(s):
    """Remove a trailing comment outside quotes."""
    if "#" not in s:
        return s.rstrip()
    q = None
    i = 0
    while i < len(s):
        c = s[i]
        if q:
            if c == "\\" and q == '"':
                i += 2
                continue
            if c == q:
                if q == "'" and i + 1 < len(s) and s[i + 1] == "'":
                    i += 2
                    continue
                q = None
        elif c in "'\"" and (i == 0 or s[i - 1] in " \t[{,:-"):
            q = c
        elif c == "#" and (i == 0 or s[i - 1] in " \t"):
            return s[:i].rstrip()
        i += 1
    return s.rstrip()


_ESC = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
        "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0"}


class _Flow:
    """Parser for one scalar or flow collection inside a single line."""

    def __init__(self, s, line):
        self.s, self.i, self.line = s, 0, line

    def err(self, msg):
        raise YAMLError("line %d: %s" % (self.line, msg))

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def value(self, in_flow):
        self.ws()
        if self.i >= len(self.s):
            return None
        c = self.s[self.i]
        if c == "[":
            self.i += 1
            out = []
            self.ws()
            if self.s[self.i:self.i + 1] == "]":
                self.i += 1
                return out
            while True:
                out.append(self.value(True))
                self.ws()
                c = self.s[self.i:self.i + 1]
                if c == ",":
                    self.i += 1
                    self.ws()
                    if self.s[self.i:self.i + 1] == "]":
                        self.i += 1
                        return out
                elif c == "]":
                    self.i += 1
                    return out
                else:
                    self.err("expected ',' or ']' in a flow sequence")
        if c == "{":
            self.i += 1
            out = {}
            self.ws()
            if self.s[self.i:self.i + 1] == "}":
                self.i += 1
                return out
            while True:
                k = self.value(True)
                self.ws()
                if self.s[self.i:self.i + 1] == ":":
                    self.i += 1
                    v = self.value(True)
                else:
                    v = None
                if not isinstance(k, (str, int, float, bool)) and k is not None:
                    self.err("unsupported flow mapping key")
                out[_key(k)] = v
                self.ws()
                c = self.s[self.i:self.i + 1]
                if c == ",":
                    self.i += 1
                    self.ws()
                    if self.s[self.i:self.i + 1] == "}":
                        self.i += 1
                        return out
                elif c == "}":
                    self.i += 1
                    return out
                else:
                    self.err("expected ',' or '}' in a flow mapping")
        if c == '"':
            return self.dquoted()
        if c == "'":
            return self.squoted()
        if c in "&*!":
            self.err("anchors, aliases and tags are not supported")
        if c in "|>" and not in_flow:
            self.err("block scalar in an unexpected place")
        start = self.i
        while self.i < len(self.s):
            c = self.s[self.i]
            if in_flow and c in ",[]{}":
                break
            if c == ":" and (self.i + 1 == len(self.s) or self.s[self.i + 1] in " \t" or
                             (in_flow and self.s[self.i + 1] in ",[]{}")):
                if in_flow:
                    break
            self.i += 1
        return _plain(self.s[start:self.i].strip())

    def dquoted(self):
        self.i += 1
        out = []
        while True:
            if self.i >= len(self.s):
                self.err("unterminated double-quoted string")
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return "".join(out)
            if c == "\\":
                e = self.s[self.i + 1:self.i + 2]
                if e in _ESC:
                    out.append(_ESC[e])
                    self.i += 2
                elif e in ("x", "u", "U"):
                    n = {"x": 2, "u": 4, "U": 8}[e]
                    h = self.s[self.i + 2:self.i + 2 + n]
                    try:
                        out.append(chr(int(h, 16)))
                    except ValueError:
                        self.err("bad escape \\%s%s" % (e, h))
                    self.i += 2 + n
                else:
                    self.err("bad escape \\%s" % e)
                continue
            out.append(c)
            self.i += 1

    def squoted(self):
        self.i += 1
        out = []
        while True:
            if self.i >= len(self.s):
                self.err("unterminated single-quoted string")
            c = self.s[self.i]
            if c == "'":
                if self.s[self.i + 1:self.i + 2] == "'":
                    out.append("'")
                    self.i += 2
                    continue
                self.i += 1
                return "".join(out)
            out.append(c)
            self.i += 1


def _key(k):
    if k is None:
        return "null"
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(k) if not isinstance(k, str) else k


_SPECIAL_FIRST = set("\"'[{&*!|>%@`")


def _scalar(text, line):
    """A complete scalar or flow collection given on one line."""
    if text and text[0] not in _SPECIAL_FIRST:
        if ": " not in text and not text.endswith(":"):
            return _plain(text)
    f = _Flow(text, line)
    v = f.value(False)
    f.ws()
    if f.i != len(f.s):
        f.err("unexpected text after a value: %r" % f.s[f.i:])
    return v


def _split_key(text, line):
    """Split 'key: rest' into (key, rest) or return None when no mapping key."""
    if text.startswith(("'", '"')):
        f = _Flow(text, line)
        k = f.dquoted() if text[0] == '"' else f.squoted()
        rest = text[f.i:].lstrip(" \t")
        if rest.startswith(":") and (len(rest) == 1 or rest[1] in " \t"):
            return k, rest[1:].strip()
        return None
    if text.startswith(("[", "{", "? ")):
        return None
    i = text.find(": ")
    if i < 0:
        if text.endswith(":"):
            i = len(text) - 1
        else:
            m = _COLON_WS.search(text)
            if not m:
                return None
            i = m.start()
    k = text[:i].strip()
    return (_key(_plain(k)) if k[:1] in _PLAIN_FIRST else k), text[i + 2:].strip()


_COLON_WS = re.compile(r":(\s|$)")


class _Lines:
    def __init__(self, lines, first_line):
        # (line number, indent, text without indent and comments, raw line)
        self.items = []
        for n, raw in enumerate(lines, first_line):
            s = raw.rstrip("\r\n")
            if "\t" in s[:len(s) - len(s.lstrip())]:
                raise YAMLError("line %d: tabs are not allowed for indentation" % n)
            t = s.strip()
            if not t or t.startswith("#"):
                self.items.append((n, None, "", s))
                continue
            self.items.append((n, len(s) - len(s.lstrip(" ")), _strip_comment(s.lstrip(" ")), s))
        self.pos = 0

    def peek(self):
        while self.pos < len(self.items) and self.items[self.pos][1] is None:
            self.pos += 1
        return self.items[self.pos] if self.pos < len(self.items) else None


_BLOCK_HDR = re.compile(r"^([|>])([-+]?)([1-9]?)([-+]?)$")
_DOC_SEP = re.compile(r"^(---|\.\.\.)(\s|$)")


def _block_scalar(L, header, parent_indent, line):
    m = _BLOCK_HDR.match(header)
    if not m:
        raise YAMLError("line %d: bad block scalar header %r" % (line, header))
    style, chomp = m.group(1), m.group(2) or m.group(4)
    explicit = int(m.group(3)) if m.group(3) else None
    raw = []
    indent = None if explicit is None else parent_indent + explicit
    while L.pos < len(L.items):
        n, ind, text, s = L.items[L.pos]
        if s.strip() == "":
            raw.append("")
            L.pos += 1
            continue
        cur = len(s) - len(s.lstrip(" "))
        if indent is None:
            if cur <= parent_indent:
                break
            indent = cur
        if cur < indent:
            break
        raw.append(s[indent:])
        L.pos += 1
    # trailing blank lines
    trail = 0
    while raw and raw[-1] == "":
        raw.pop()
        trail += 1
    if style == "|":
        body = "\n".join(raw)
    else:
        out, prev_more = [], False
        for r in raw:
            more = r.startswith(" ") or r == ""
            if out and not more and not prev_more and out[-1] != "\n":
                out.append(" ")
            elif out:
                out.append("\n")
            out.append(r)
            prev_more = r.startswith(" ")
        body = "".join(out)
    if not raw:
        return ""
    if chomp == "-":
        return body
    if chomp == "+":
        return body + "\n" * (1 + trail)
    return body + "\n"


def _node(L, indent):
    """Parse the block node whose lines are indented by at least indent."""
    it = L.peek()
    if it is None or it[1] < indent:
        return None
    n, ind, text, _ = it
    if text == "-" or text.startswith("- "):
        return _seq(L, ind)
    if _split_key(text, n) is not None:
        return _map(L, ind)
    # a multi-line plain or quoted scalar
    L.pos += 1
    parts = [text]
    while True:
        nx = L.peek()
        if nx is None or nx[1] < indent or nx[1] <= ind - 1:
            break
        parts.append(nx[2])
        L.pos += 1
    if len(parts) == 1:
        return _scalar(text, n)
    if text.startswith(('"', "'")):
        return _scalar(" ".join(parts), n)
    return " ".join(p.strip() for p in parts)


def _value_after(L, rest, ind, n):
    """The value of 'key: rest' or '- rest' where the node sits at indent ind."""
    if rest.startswith(("|", ">")):
        return _block_scalar(L, rest, ind, n)
    if rest.startswith("&") or rest.startswith("*") or rest.startswith("!"):
        raise YAMLError("line %d: anchors, aliases and tags are not supported" % n)
    if rest != "":
        v = _scalar(rest, n)
        # continuation lines of a plain scalar
        nx = L.peek()
        if isinstance(v, str) and nx is not None and nx[1] > ind and not rest.startswith(("'", '"', "[", "{")):
            parts = [rest]
            while nx is not None and nx[1] > ind:
                parts.append(nx[2])
                L.pos += 1
                nx = L.peek()
            return " ".join(parts)
        return v
    nx = L.peek()
    if nx is None:
        return None
    if nx[1] > ind:
        return _node(L, ind + 1)
    if nx[1] == ind and (nx[2] == "-" or nx[2].startswith("- ")) and not _in_seq(L, ind):
        return _seq(L, ind)
    return None


def _in_seq(L, ind):
    return False


def _map(L, ind):
    out = {}
    while True:
        it = L.peek()
        if it is None or it[1] < ind:
            return out
        n, cur, text, _ = it
        if cur > ind:
            raise YAMLError("line %d: unexpected indentation" % n)
        if text == "-" or text.startswith("- "):
            return out
        kv = _split_key(text, n)
        if kv is None:
            raise YAMLError("line %d: expected 'key: value', got %r" % (n, text))
        k, rest = kv
        L.pos += 1
        if k in out:
            raise YAMLError("line %d: duplicate key %r" % (n, k))
        out[k] = _value_after(L, rest, ind, n)


def _seq(L, ind):
    out = []
    while True:
        it = L.peek()
        if it is None or it[1] < ind:
            return out
        n, cur, text, raw = it
        if cur != ind or not (text == "-" or text.startswith("- ")):
            if cur > ind:
                raise YAMLError("line %d: unexpected indentation" % n)
            return out
        rest = text[1:].lstrip(" ")
        if rest == "":
            L.pos += 1
            nx = L.peek()
            out.append(_node(L, ind + 1) if nx is not None and nx[1] > ind else None)
            continue
        # "- key: v" starts a mapping whose keys sit at the column of "key"
        col = ind + (len(text) - len(rest))
        if _split_key(rest, n) is not None and not rest.startswith(("[", "{")):
            L.items[L.pos] = (n, col, rest, raw)
            out.append(_map(L, col))
        elif rest == "-" or rest.startswith("- "):
            L.items[L.pos] = (n, col, rest, raw)
            out.append(_seq(L, col))
        else:
            L.pos += 1
            out.append(_value_after(L, rest, ind, n))


def load_all(text):
    """Parse a YAML stream and return the list of its non-empty documents."""
    docs, cur, start = [], [], 1
    lines = text.splitlines()
    for i, line in enumerate(lines + ["---"], 1):
        if line[:3] in ("---", "...") and _DOC_SEP.match(line):
            rest = line[3:].strip()
            body = "\n".join(cur)
            if body.strip():
                docs.append(_doc(cur, start))
            cur, start = [], i + 1
            if line.startswith("---") and rest and not rest.startswith("#"):
                cur.append(rest)
                start = i
            continue
        if line.startswith("%"):
            continue
        cur.append(line)
    return [d for d in docs if d is not None]


def _doc(lines, first):
    L = _Lines(lines, first)
    it = L.peek()
    if it is None:
        return None
    v = _node(L, it[1])
    rest = L.peek()
    if rest is not None:
        raise YAMLError("line %d: unexpected content %r" % (rest[0], rest[2]))
    return v


_SAFE = re.compile(r"^[A-Za-z_./][-A-Za-z0-9_./ ]*$")


def _dump_str(s):
    if s == "" or not _SAFE.match(s) or s != s.strip() or _plain(s) != s or ": " in s or " #" in s:
        return json.dumps(s, ensure_ascii=False)
    return s


def _dump(v, indent, out):
    pad = "  " * indent
    if isinstance(v, dict):
        if not v:
            return "{}"
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                out.append("%s%s:" % (pad, _dump_str(str(k))))
                if isinstance(x, dict):
                    _dump(x, indent + 1, out)
                else:
                    _dump(x, indent, out)
            else:
                out.append("%s%s: %s" % (pad, _dump_str(str(k)), _scalar_text(x)))
        return None
    if isinstance(v, list):
        for x in v:
            if isinstance(x, dict) and x:
                sub = []
                _dump(x, indent + 1, sub)
                first = sub[0]
                out.append("%s- %s" % (pad, first[len(pad) + 2:]))
                out.extend(sub[1:])
            elif isinstance(x, list) and x:
                out.append("%s-" % pad)
                _dump(x, indent + 1, out)
            else:
                out.append("%s- %s" % (pad, _scalar_text(x)))
        return None
    return None


def _scalar_text(x):
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if isinstance(x, (int, float)):
        return json.dumps(x)
    if isinstance(x, dict):
        return "{}"
    if isinstance(x, list):
        return "[]"
    return _dump_str(x)


def dump(v):
    """Serialize a JSON-like value as block YAML."""
    if isinstance(v, (dict, list)) and v:
        out = []
        _dump(v, 0, out)
        return "\n".join(out) + "\n"
    return _scalar_text(v) + "\n"
