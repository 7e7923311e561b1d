#!/usr/bin/env python3
"""drivers.py FILE: the drivers of the file's ResourceSlices, one a line,
sorted (YAML streams, JSON Lines and Lists; nothing for what is unreadable)."""
import json
import sys

import yaml


def docs(text):
    try:
        return list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            return []


def walk(o, out):
    if isinstance(o, dict):
        if o.get("kind") == "ResourceSlice" and isinstance(o.get("spec"), dict):
            d = o["spec"].get("driver")
            if isinstance(d, str) and d:
                out.add(d)
        for item in o.get("items") or [] if isinstance(o.get("items"), list) else []:
            walk(item, out)


out = set()
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for d in docs(f.read()):
        walk(d, out)
print("\n".join(sorted(out)))
