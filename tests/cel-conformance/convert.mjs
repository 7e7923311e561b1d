// Convert the CEL conformance "simple" tests shipped in the npm package
// @bufbuild/cel-spec (cel.expr.conformance.test.SimpleTestFile, protobuf JSON
// inside dist/esm/testdata/conformance.js) into the JSON Lines file that
// tests/unit/test_cel_conformance.c reads.
//
//   node convert.mjs PACKAGE_DIR > simple-tests.jsonl     (run by regen.sh)
//
// PACKAGE_DIR is the installed node_modules/@bufbuild/cel-spec.
//
// One case per line:
//   file, section, name, expr          strings
//   container                          string ("" when none)
//   disable_check, check_only          booleans
//   decls      [{name, type}]          variable declarations; type in CEL
//                                      notation ("int", "list(string)",
//                                      "map(string, dyn)", "type(int)", ...)
//   func_decls [{name, overloads}]     function declarations (raw protobuf
//                                      JSON; the runner skips such cases)
//   bindings   {name: V}               activation
//   expect     "value" | "error" | "unknown" | "type" | "none"
//   value      V                       when expect is "value"
//   errors     [string]                when expect is "error" (any error passes)
//   type       string                  deduced type when the test gives one
//
// Values V are tagged so that int, uint, double and bytes survive JSON:
//   {"int":"-5"} {"uint":"5"} {"double":"1.5" | "1e+100" | "NaN" | "Infinity" | "-Infinity" | "-0"}
//   {"bool":true} {"string":"s"} {"bytes":"<base64>"} {"null":null}
//   {"list":[V,...]} {"map":[[K,V],...]} {"type":"int"}
//   {"timestamp":"2009-02-13T23:31:30Z"} {"duration":"1.5s"}
//   {"enum":{"type":"pkg.Enum","value":1}}
//   {"message":{"type":"pkg.Msg","json":{...}}}   protobuf messages (skipped)
//   {"error":"msg"} {"unknown":[ids]}              non-value bindings
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

if (process.argv.length < 3) {
  process.stderr.write("usage: node convert.mjs PATH/node_modules/@bufbuild/cel-spec\n");
  process.exit(2);
}
const pkgDir = resolve(process.argv[2]);
const { tests } = await import(pathToFileURL(`${pkgDir}/dist/esm/testdata/conformance.js`).href);

const PRIMITIVES = {
  BOOL: "bool",
  INT64: "int",
  UINT64: "uint",
  DOUBLE: "double",
  STRING: "string",
  BYTES: "bytes",
};
const WELL_KNOWN = {
  ANY: "google.protobuf.Any",
  TIMESTAMP: "google.protobuf.Timestamp",
  DURATION: "google.protobuf.Duration",
};
// Message types CEL treats as built-in values.
const WRAPPERS = {
  "google.protobuf.BoolValue": "bool",
  "google.protobuf.Int32Value": "int",
  "google.protobuf.Int64Value": "int",
  "google.protobuf.UInt32Value": "uint",
  "google.protobuf.UInt64Value": "uint",
  "google.protobuf.FloatValue": "double",
  "google.protobuf.DoubleValue": "double",
  "google.protobuf.StringValue": "string",
  "google.protobuf.BytesValue": "bytes",
};

// cel.expr.Type (protobuf JSON) -> CEL type notation as cel-go prints it.
function typeName(t) {
  if (t.primitive) return PRIMITIVES[t.primitive];
  if (t.wrapper) return `wrapper(${PRIMITIVES[t.wrapper]})`;
  if (t.wellKnown) return WELL_KNOWN[t.wellKnown];
  if ("dyn" in t) return "dyn";
  if ("null" in t) return "null_type";
  if ("error" in t) return "error";
  if (t.listType) return `list(${typeName(t.listType.elemType)})`;
  if (t.mapType)
    return `map(${typeName(t.mapType.keyType)}, ${typeName(t.mapType.valueType)})`;
  if (t.messageType) return t.messageType;
  if (t.typeParam) return t.typeParam;
  if ("type" in t) return t.type && Object.keys(t.type).length ? `type(${typeName(t.type)})` : "type";
  if (t.abstractType) {
    const ps = (t.abstractType.parameterTypes || []).map(typeName);
    return ps.length ? `${t.abstractType.name}(${ps.join(", ")})` : t.abstractType.name;
  }
  if (t.function) return "function";
  throw new Error(`unknown type ${JSON.stringify(t)}`);
}

// Doubles travel as text (JavaScript's shortest round-trip form) so that large
// integral values such as 9223372036854775808.0 do not become JSON integers.
function double(d) {
  if (typeof d === "string") return d; // "NaN", "Infinity", "-Infinity"
  if (Object.is(d, -0)) return "-0";
  return String(d);
}

// Well-known protobuf messages packed in an Any become CEL values.
function wellKnownObject(o) {
  const url = o["@type"] || "";
  const type = url.slice(url.lastIndexOf("/") + 1);
  if (type in WRAPPERS) return scalarOf(WRAPPERS[type], o.value);
  switch (type) {
    case "google.protobuf.Timestamp":
      return { timestamp: o.value };
    case "google.protobuf.Duration":
      return { duration: o.value };
    case "google.protobuf.Value":
      return jsonValue(o.value);
    case "google.protobuf.Struct":
      return jsonValue(o.value);
    case "google.protobuf.ListValue":
      return jsonValue(o.value);
  }
  const { "@type": _, ...json } = o;
  return { message: { type, json } };
}

function scalarOf(kind, v) {
  switch (kind) {
    case "bool":
      return { bool: v ?? false };
    case "int":
      return { int: String(v ?? 0) };
    case "uint":
      return { uint: String(v ?? 0) };
    case "double":
      return { double: double(v ?? 0) };
    case "string":
      return { string: v ?? "" };
    case "bytes":
      return { bytes: v ?? "" };
  }
  throw new Error(kind);
}

// google.protobuf.Value in its JSON form -> CEL value (numbers are doubles).
function jsonValue(v) {
  if (v === null) return { null: null };
  if (typeof v === "boolean") return { bool: v };
  if (typeof v === "number") return { double: double(v) };
  if (typeof v === "string") return { string: v };
  if (Array.isArray(v)) return { list: v.map(jsonValue) };
  return { map: Object.entries(v).map(([k, x]) => [{ string: k }, jsonValue(x)]) };
}

// cel.expr.Value (protobuf JSON) -> tagged value.
function value(v) {
  if ("nullValue" in v) return { null: null };
  if ("boolValue" in v) return { bool: v.boolValue };
  if ("int64Value" in v) return { int: String(v.int64Value) };
  if ("uint64Value" in v) return { uint: String(v.uint64Value) };
  if ("doubleValue" in v) return { double: double(v.doubleValue) };
  if ("stringValue" in v) return { string: v.stringValue };
  if ("bytesValue" in v) return { bytes: v.bytesValue };
  if ("typeValue" in v) return { type: v.typeValue };
  if ("enumValue" in v) return { enum: { type: v.enumValue.type, value: v.enumValue.value ?? 0 } };
  if ("listValue" in v) return { list: (v.listValue.values || []).map(value) };
  if ("mapValue" in v)
    return { map: (v.mapValue.entries || []).map((e) => [value(e.key), value(e.value)]) };
  if ("objectValue" in v) return wellKnownObject(v.objectValue);
  // An empty Value message: protobuf JSON drops default fields, and the only
  // kind whose default is indistinguishable is... none; treat as null.
  if (Object.keys(v).length === 0) return { null: null };
  throw new Error(`unknown value ${JSON.stringify(v)}`);
}

// cel.expr.ExprValue -> tagged value (errors and unknowns kept as markers).
function exprValue(ev) {
  if (ev.value) return value(ev.value);
  if (ev.error) return { error: (ev.error.errors || []).map((e) => e.message).join("; ") };
  if (ev.unknown) return { unknown: ev.unknown.exprs || [] };
  return { null: null };
}

function convert(file, section, o) {
  const c = {
    file,
    section,
    name: o.name,
    expr: o.expr,
    container: o.container || "",
    disable_check: !!o.disableCheck,
    check_only: !!o.checkOnly,
    decls: [],
    func_decls: [],
    bindings: {},
    expect: "none",
  };
  for (const d of o.typeEnv || []) {
    if (d.ident) c.decls.push({ name: d.name, type: typeName(d.ident.type || { dyn: {} }) });
    else if (d.function) c.func_decls.push({ name: d.name, overloads: d.function.overloads || [] });
  }
  for (const [name, ev] of Object.entries(o.bindings || {})) c.bindings[name] = exprValue(ev);
  if (o.value) {
    c.expect = "value";
    c.value = value(o.value);
  } else if (o.typedResult) {
    if (o.typedResult.result) {
      c.expect = "value";
      c.value = value(o.typedResult.result);
    } else c.expect = "type";
    if (o.typedResult.deducedType) c.type = typeName(o.typedResult.deducedType);
  } else if (o.evalError) {
    c.expect = "error";
    c.errors = (o.evalError.errors || []).map((e) => e.message);
  } else if (o.anyEvalErrors) {
    c.expect = "error";
    c.errors = (o.anyEvalErrors.errors || []).flatMap((s) => (s.errors || []).map((e) => e.message));
  } else if (o.unknown || o.anyUnknowns) {
    c.expect = "unknown";
  } else {
    // SimpleTest: "If the result kind is not set, the default is the boolean value true."
    c.expect = o.checkOnly ? "none" : "value";
    if (!o.checkOnly) c.value = { bool: true };
  }
  return c;
}

const lines = [];
for (const f of tests.suites) {
  for (const s of f.suites || []) {
    for (const t of s.tests || []) lines.push(JSON.stringify(convert(f.name, s.name, t.original)));
  }
}
process.stdout.write(lines.join("\n") + "\n");
