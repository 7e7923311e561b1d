// Random, well-typed CEL expressions evaluated by @bufbuild/cel, written as
// golden data for the project's differential test (tests/unit/test_cel_diff.c).
//
//   node gen.mjs [--seed N] [--count N] > cases.jsonl
//
// Each output line: {"id":N,"expr":"<CEL>","want":"<CEL literal>"} or
// {"id":N,"expr":"<CEL>","want":"error"}.  `want` is written in CEL literal
// syntax so the runner can compile it with the project's engine and compare
// values (NaN and infinities as double("NaN") / double("Infinity")).
//
// Only what both engines implement is generated: the standard library and the
// strings extension (@bufbuild/cel 0.6.1 has no lists/sets/math extensions,
// no optional functions and no cel.bind).  Known @bufbuild/cel deviations from
// cel-go are avoided at generation time; see skip.txt for the reasons.
import { run, isCelError, isCelList, isCelMap, isCelUint, isCelType } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { celgoCompat } from "./celgo-compat.mjs";

// ---- deterministic PRNG (mulberry32) ---------------------------------------
let seed = 20250901, count = 12000;
for (let i = 2; i < process.argv.length; i++) {
    if (process.argv[i] === "--seed") seed = Number(process.argv[++i]);
    else if (process.argv[i] === "--count") count = Number(process.argv[++i]);
}
let state = seed >>> 0;
function rnd() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rnd() * a.length)];
const chance = (p) => rnd() < p;
const randInt = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const p = (s) => `(${s})`;

// ---- types ----------------------------------------------------------------
// Scalar types are strings; list(T) is {list: T}; map(K, V) is {map: [K, V]}.
const SCALARS = ["int", "uint", "double", "string", "bytes", "bool"];
const KEY_TYPES = ["int", "uint", "string", "bool"];
const tstr = (t) => typeof t === "string" ? t : t.list ? `list(${tstr(t.list)})` : `map(${tstr(t.map[0])}, ${tstr(t.map[1])})`;
const teq = (a, b) => tstr(a) === tstr(b);
function randType(depth) {
    const r = rnd();
    if (depth <= 0 || r < 0.7) return pick(SCALARS);
    if (r < 0.88) return { list: randType(depth - 1) };
    return { map: [pick(KEY_TYPES), randType(depth - 1)] };
}

// ---- literals ---------------------------------------------------------------
// Strings use BMP characters only in general (bufbuild indexes strings by
// UTF-16 code unit; see skip.txt); non-BMP text has its own safe templates.
const STR_POOL = ["", "a", "b", "abc", "ABC", "Hello", "hello world", " pad ", "\t x\n", "a,b,c", "a-b",
    "x.y.z", "café", "ÀÉÎ", "straße", "Σίσυφος", "日本語", "ü", "abcabc", "aaa", "ba", "0", "12", "-7",
    "3.5", "true", "key", "k1", "k2", "\\", "\"q\"", "line\nbreak", "tab\tch", "ñandú", "z"];
const SUB_POOL = ["", "a", "b", "c", "ab", "bc", "é", "ß", "日", "x", " ", ",", "-", ".", "l", "o", "A", "z", "abc"];
const NON_BMP = ["😀", "𝄞", "𐍈", "a😀b", "😀😀", "x𝄞y"];
const RE_POOL = ["^a", "b$", "a.c", "^[a-z]+$", "[0-9]+", "^$", "é", "(ab)+", "a|b", "^.{3}$", "\\s", "[A-Z]",
    "^h.*d$", "x?y*", "日本", ".", "^\\d+$", "(?i)abc", "[^a]"];
const INT_EDGE = ["0", "1", "-1", "2", "3", "-3", "7", "10", "-10", "100", "255", "65536", "9223372036854775807",
    "-9223372036854775808", "4294967296", "-4611686018427387904"];
const UINT_EDGE = ["0u", "1u", "2u", "3u", "7u", "10u", "100u", "18446744073709551615u", "9223372036854775808u",
    "4294967295u"];
const DOUBLE_EDGE = ["0.0", "1.0", "-1.0", "0.5", "1.5", "-2.5", "3.0", "0.1", "1e10", "-1e10", "1e300",
    "1e-300", "2.0", "10.0", "100.25", "9.2233720368547758e18", "-9.2233720368547758e18", "1.8446744073709552e19",
    "double(\"NaN\")", "double(\"Infinity\")", "double(\"-Infinity\")", "-0.0"];

function quoteStr(s) {
    let out = '"';
    for (const ch of s) {
        const c = ch.codePointAt(0);
        if (ch === '"') out += '\\"';
        else if (ch === "\\") out += "\\\\";
        else if (ch === "\n") out += "\\n";
        else if (ch === "\r") out += "\\r";
        else if (ch === "\t") out += "\\t";
        else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
        else if (c >= 0xd800 && c <= 0xdfff) throw new Error("lone surrogate");
        else if (c > 0xffff && chance(0.3)) out += "\\U" + c.toString(16).padStart(8, "0");
        else if (c > 0x7f && chance(0.2)) out += "\\u" + c.toString(16).padStart(4, "0");
        else out += ch;
    }
    return out + '"';
}
function quoteBytes(u8) {
    let out = 'b"';
    for (const c of u8) {
        if (c === 0x22) out += '\\"';
        else if (c === 0x5c) out += "\\\\";
        else if (c >= 0x20 && c < 0x7f) out += String.fromCharCode(c);
        else out += "\\x" + c.toString(16).padStart(2, "0");
    }
    return out + '"';
}
const BYTES_POOL = ['b""', 'b"a"', 'b"abc"', 'b"\\x00\\xff"', 'b"\\xc3\\xa9"', 'b"\\xff"', 'b"hello"', "b'z'", 'b"\\001"'];

function literal(t, depth) {
    switch (t) {
    case "int": return chance(0.8) ? String(randInt(-20, 20)) : pick(INT_EDGE);
    case "uint": return chance(0.8) ? `${randInt(0, 30)}u` : pick(UINT_EDGE);
    case "double": return chance(0.7) ? (randInt(-400, 400) / 8).toFixed(3) : pick(DOUBLE_EDGE);
    case "string": return quoteStr(pick(STR_POOL));
    case "bytes": return chance(0.5) ? pick(BYTES_POOL) : `bytes(${quoteStr(pick(STR_POOL))})`;
    case "bool": return pick(["true", "false"]);
    case "null": return "null";
    }
    if (t.list) {
        const n = depth > 0 ? randInt(0, 4) : randInt(0, 2);
        const items = [];
        for (let i = 0; i < n; i++) items.push(gen(t.list, depth - 1));
        // An empty literal has a free element type that the first use binds
        // (cel-go checker), which can clash with a later use: type it.
        return n === 0 ? listDefault(t) : `[${items.join(", ")}]`;
    }
    if (t.map) {
        const n = depth > 0 ? randInt(1, 3) : randInt(1, 2);
        const keys = new Set(), entries = [];
        for (let i = 0; i < n; i++) {
            const k = literal(t.map[0], 0);
            if (keys.has(canonKey(t.map[0], k))) continue;
            keys.add(canonKey(t.map[0], k));
            entries.push(`${k}: ${gen(t.map[1], depth - 1)}`);
        }
        return entries.length ? `{${entries.join(", ")}}` : "dyn({})";
    }
    throw new Error("no literal for " + tstr(t));
}
// Key identity for duplicate detection among literal keys.
function canonKey(t, k) {
    const v = run(k, {}, { funcs: strings });
    return typeof v === "bigint" || isCelUint(v) ? String(isCelUint(v) ? v.value : v) : String(v);
}
// A typed empty list: filter over a one-element list of the type.
function listDefault(t) { return `[${literal(t.list, 0)}].filter(e, false)`; }

// ---- expressions ------------------------------------------------------------
// scope: array of {name, type} for comprehension variables.
let scope = [];
let varCounter = 0;

function scopeVar(t) {
    const c = scope.filter((v) => teq(v.type, t));
    return c.length ? pick(c).name : null;
}

// Expressions that fail at run time, of type t (for error absorption).
function errorExpr(t) {
    const bases = {
        int: ["1 / 0", "5 % 0", "[1, 2][2]", "{\"a\": 1}[\"b\"]", "9223372036854775807 + 1", "-9223372036854775808 - 1",
            "int(1e20)", "int(\"x\")", "[1][-1]"],
        uint: ["1u / 0u", "0u - 1u", "uint(-1)", "[1u][5]", "18446744073709551615u + 1u", "uint(-0.5 - 1.0)"],
        double: ["[1.0][3]", "{1: 2.0}[2]", "double(dyn(\"x\"))"],
        string: ["\"abc\".substring(5)", "\"abc\".charAt(4)", "{\"k\": \"v\"}[\"x\"]", "string(b\"\\xff\")", "[\"a\"][1]"],
        bytes: ["[b\"a\"][2]", "{1: b\"x\"}[0]"],
        bool: ["1 / 0 == 1", "[true][1]", "{\"a\": true}[\"z\"]", "\"abc\".charAt(9) == \"\"", "int(\"1.5\") > 0",
            "(0u - 1u) > 0u"],
    };
    if (typeof t === "string" && bases[t]) return pick(bases[t]);
    if (t.list) return `[${literal(t, 0)}][3]`;
    return `[${literal(t, 0)}][1]`;
}

function gen(t, depth) {
    if (depth <= 0 || chance(0.18)) {
        const v = scopeVar(t);
        if (v && chance(0.6)) return v;
        if (chance(0.02) && t !== "null") return errorExpr(t);
        return literal(t, Math.max(depth, 0));
    }
    if (chance(0.06)) return p(`${p(gen("bool", depth - 1))} ? ${p(gen(t, depth - 1))} : ${p(gen(t, depth - 1))}`);
    if (chance(0.02) && t !== "null") return errorExpr(t);
    const d = depth - 1;
    switch (t) {
    case "int": return genInt(d);
    case "uint": return genUint(d);
    case "double": return genDouble(d);
    case "string": return genString(d);
    case "bytes": return genBytes(d);
    case "bool": return genBool(d);
    case "null": return "null";
    }
    if (t.list) return genList(t, d);
    if (t.map) return genMap(t, d);
    throw new Error("bad type");
}

// `list[i]` of element type t: mostly a literal list indexed in range.
function indexList(t, d) {
    if (chance(0.3)) return `${p(gen({ list: t }, d))}[${chance(0.5) ? randInt(-1, 3) : gen("int", d)}]`;
    const n = randInt(1, 4), items = [];
    for (let i = 0; i < n; i++) items.push(gen(t, d));
    return `[${items.join(", ")}][${chance(0.85) ? randInt(0, n - 1) : pick([n, -1, "dyn(0u)", "dyn(1.0)"].map(String))}]`;
}
// `map[k]` of value type v: mostly a literal map indexed by one of its keys.
function indexMap(v, d) {
    const k = pick(KEY_TYPES);
    if (chance(0.3)) return `${p(gen({ map: [k, v] }, d))}[${gen(k, d)}]`;
    const keys = new Map();
    for (let i = randInt(1, 3); i > 0; i--) { const kl = literal(k, 0); keys.set(canonKey(k, kl), kl); }
    const ks = [...keys.values()];
    const m = `{${ks.map((kl) => `${kl}: ${gen(v, d)}`).join(", ")}}`;
    return `${m}[${chance(0.85) ? pick(ks) : literal(k, 0)}]`;
}

function genInt(d) {
    switch (randInt(0, 13)) {
    case 0: case 1: return `${p(gen("int", d))} ${pick(["+", "-", "*"])} ${p(gen("int", d))}`;
    case 2: return `${p(gen("int", d))} ${pick(["/", "%"])} ${p(gen("int", d))}`;
    case 3: return `-${p(gen("int", d))}`;
    case 4: return `int(${gen(pick(["uint", "double", "int"]), d)})`;
    case 5: return `int(${pick(["\"12\"", "\"-5\"", "\"abc\"", "\"\"", "\"1.5\"", "\"9223372036854775807\"", "\"9223372036854775808\"", "\"-0\"", "\"007\""])})`;
    case 6: return `size(${gen(pick(["string", "bytes", { list: "int" }, { map: ["string", "int"] }]), d)})`;
    case 7: return `${p(gen("string", d))}.size()`;
    case 8: return `${p(gen("string", d))}.indexOf(${gen("string", d)})`;
    case 9: return `${p(gen("string", d))}.${pick(["indexOf", "lastIndexOf"])}(${gen("string", d)}${chance(0.4) ? ", " + gen("int", d) : ""})`;
    case 10: return indexList("int", d);
    case 11: return indexMap("int", d);
    case 12: return `int(${p(gen("string", d))}.size()) * ${p(gen("int", d))}`;
    default: return `${p(gen({ list: "int" }, d))}.size()`;
    }
}
function genUint(d) {
    switch (randInt(0, 7)) {
    case 0: case 1: return `${p(gen("uint", d))} ${pick(["+", "-", "*"])} ${p(gen("uint", d))}`;
    case 2: return `${p(gen("uint", d))} ${pick(["/", "%"])} ${p(gen("uint", d))}`;
    case 3: return `uint(${gen(pick(["int", "double", "uint"]), d)})`;
    case 4: return `uint(${pick(["\"12\"", "\"0\"", "\"-1\"", "\"abc\"", "\"18446744073709551615\"", "\"18446744073709551616\""])})`;
    case 5: return indexList("uint", d);
    case 6: return indexMap("uint", d);
    default: return `uint(size(${gen("string", d)}))`;
    }
}
function genDouble(d) {
    switch (randInt(0, 6)) {
    case 0: case 1: return `${p(gen("double", d))} ${pick(["+", "-", "*", "/"])} ${p(gen("double", d))}`;
    case 2: return `-${p(gen("double", d))}`;
    case 3: return `double(${gen(pick(["int", "uint", "double"]), d)})`;
    case 4: return `double(${pick(["\"1.5\"", "\"-0.25\"", "\"1e3\"", "\"NaN\"", "\"-Infinity\"", "\"7\"", "\".5\"", "\"+2\"", "\"1e400\"", "\"inf\""])})`;
    case 5: return indexList("double", d);
    default: return indexMap("double", d);
    }
}
// Double literals whose shortest text is the same in Go's %g and JavaScript
// (exponent between -4 and 5); other values are dropped by the compat check.
function safeDoubleForString() {
    return pick(["0.0", "1.0", "-1.5", "0.25", "3.14159", "100.0", "12345.5", "-99999.0", "0.001", "0.0001", "2.5e3"]);
}
function genString(d) {
    switch (randInt(0, 17)) {
    case 0: case 1: return `${p(gen("string", d))} + ${p(gen("string", d))}`;
    case 2: return `${p(gen("string", d))}.substring(${gen("int", d)}${chance(0.5) ? ", " + gen("int", d) : ""})`;
    case 3: return `${p(gen("string", d))}.charAt(${gen("int", d)})`;
    case 4: return `${p(gen("string", d))}.${pick(["lowerAscii", "upperAscii", "trim"])}()`;
    case 5: return `${p(gen("string", d))}.replace(${quoteStr(pick(SUB_POOL.filter((s) => s !== "")))}, ${gen("string", d)}${chance(0.4) ? ", " + pick(["0", "1", "2", "-1"]) : ""})`;
    case 6: return `${p(gen({ list: "string" }, d))}.join(${chance(0.6) ? gen("string", d) : ""})`;
    case 7: return `string(${gen(pick(["int", "uint", "bool", "string"]), d)})`;
    case 8: return `string(${chance(0.5) ? safeDoubleForString() : gen("double", d)})`;
    case 9: return `string(${gen("bytes", d)})`;
    case 10: return indexList("string", d);
    case 11: return indexMap("string", d);
    case 12: return `${p(gen("string", d))}.split(${quoteStr(pick(SUB_POOL.filter((s) => s !== "")))})[${randInt(0, 2)}]`;
    case 13: { const k = "string"; return `${p(gen({ map: [k, "string"] }, d))}.${pick(["a", "key", "k1", "z"])}`; }
    case 14: return `${p(gen("string", d))}.lowerAscii() + ${p(gen("string", d))}.upperAscii()`;
    default: return quoteStr(pick(STR_POOL));
    }
}
function genBytes(d) {
    switch (randInt(0, 4)) {
    case 0: case 1: return `${p(gen("bytes", d))} + ${p(gen("bytes", d))}`;
    case 2: return `bytes(${gen("string", d)})`;
    case 3: return indexList("bytes", d);
    default: return `bytes(${gen("bytes", d)})`;
    }
}
const NUM = ["int", "uint", "double"];
function genBool(d) {
    switch (randInt(0, 24)) {
    case 0: case 1: case 2: return `${p(gen("bool", d))} ${pick(["&&", "||"])} ${p(gen("bool", d))}`;
    case 3: return `!${p(gen("bool", d))}`;
    case 4: case 5: { const t = pick(NUM); const u = pick(NUM); // cross-type ordering is allowed
        return `${p(gen(t, d))} ${pick(["<", "<=", ">", ">="])} ${p(gen(u, d))}`; }
    case 6: { const t = pick(NUM); const u = pick(NUM); // cross-type equality needs dyn
        return `dyn(${gen(t, d)}) ${pick(["==", "!="])} ${t === u ? gen(u, d) : `dyn(${gen(u, d)})`}`; }
    case 7: case 8: { const t = randType(1);
        return `${p(gen(t, d))} ${pick(["==", "!="])} ${p(gen(t, d))}`; }
    case 9: { const t = pick(["string", "bytes", "bool", "int", "uint", "double"]);
        return `${p(gen(t, d))} ${pick(["<", "<=", ">", ">="])} ${p(gen(t, d))}`; }
    case 10: { const t = pick(SCALARS); return `${p(gen(t, d))} in ${p(gen({ list: t }, d))}`; }
    case 11: { const k = pick(KEY_TYPES); return `${p(gen(k, d))} in ${p(gen({ map: [k, pick(SCALARS)] }, d))}`; }
    case 12: { const t = pick(NUM); const u = pick(NUM); return `dyn(${gen(t, d)}) in ${p(`[${gen(u, d)}, ${gen(u, d)}]`)}`; }
    case 13: return `${p(gen("string", d))}.${pick(["contains", "startsWith", "endsWith"])}(${gen("string", d)})`;
    case 14: return `${p(gen("string", d))}.matches(${quoteStr(pick(RE_POOL))})`;
    case 15: case 16: case 17: return macroBool(d);
    case 18: return `has(${p(gen({ map: ["string", pick(SCALARS)] }, d))}.${pick(["a", "key", "k1", "z"])})`;
    case 19: { const t = randType(1); return `type(${gen(t, d)}) == ${typeName(chance(0.7) ? t : randType(1))}`; }
    case 20: return nonBmpBool();
    case 21: { const k = pick(NUM); const u = pick(NUM.filter((x) => x !== "double"));
        return `${p(gen({ map: [u, "int"] }, d))}[dyn(${gen(k, d)})] == ${gen("int", d)}`; }
    case 22: return `${p(gen("bool", d))} == ${p(gen("bool", d))}`;
    case 23: return `type(${gen(randType(1), d)}) == type(${gen(randType(1), d)})`;
    default: return indexList("bool", d);
    }
}
function typeName(t) { return typeof t === "string" ? t : t.list ? "list" : "map"; }
function nonBmpBool() {
    const a = pick(NON_BMP), b = pick(NON_BMP.concat(["a", "b", ""]));
    return pick([
        `size(${quoteStr(a)}) == ${randInt(1, 4)}`,
        `${quoteStr(a)} + ${quoteStr(b)} == ${quoteStr(a + b)}`,
        `${quoteStr(a)}.contains(${quoteStr(b)})`,
        `${quoteStr(a)}.startsWith(${quoteStr(b)})`,
        `${quoteStr(a)}.endsWith(${quoteStr(b)})`,
        `${quoteStr(a)} == ${quoteStr(b)}`,
        `bytes(${quoteStr(a)}) == bytes(${quoteStr(b)})`,
        `size(bytes(${quoteStr(a)})) == ${randInt(3, 8)}`,
        `${quoteStr(a)}.matches(${quoteStr(pick(["^.$", "^..$", "b$", "^a", "😀"]))})`,
    ]);
}
function withVar(t, body) {
    const name = `v${varCounter++ % 6}`;
    if (scope.some((v) => v.name === name)) return body(null);
    scope.push({ name, type: t });
    try { return body(name); } finally { scope.pop(); }
}
function macroBool(d) {
    const overMap = chance(0.25);
    const elt = overMap ? pick(KEY_TYPES) : randType(1);
    const range = overMap ? gen({ map: [elt, pick(SCALARS)] }, d) : gen({ list: elt }, d);
    const m = pick(["all", "exists", "exists_one"]);
    return withVar(elt, (v) => v === null ? "true" : `${p(range)}.${m}(${v}, ${gen("bool", d)})`);
}
function genList(t, d) {
    switch (randInt(0, 7)) {
    case 0: return `${p(gen(t, d))} + ${p(gen(t, d))}`;
    case 1: { const src = randType(1); const r = gen({ list: src }, d);
        return withVar(src, (v) => v === null ? literal(t, d) : `${p(r)}.map(${v}, ${gen(t.list, d)})`); }
    case 2: { const r = gen(t, d); return withVar(t.list, (v) => v === null ? r : `${p(r)}.filter(${v}, ${gen("bool", d)})`); }
    case 3: { const src = randType(1); const r = gen({ list: src }, d);
        return withVar(src, (v) => v === null ? literal(t, d) : `${p(r)}.map(${v}, ${gen("bool", d)}, ${gen(t.list, d)})`); }
    case 4: if (teq(t.list, "string")) return `${p(gen("string", d))}.split(${gen("string", d)}${chance(0.3) ? ", " + pick(["0", "1", "2", "-1"]) : ""})`;
        return literal(t, d + 1);
    case 5: return `${p(gen({ list: t }, d))}[${gen("int", d)}]`;
    default: return literal(t, d + 1);
    }
}
function genMap(t, d) {
    if (chance(0.2)) return `${p(gen({ list: t }, d))}[${gen("int", d)}]`;
    return literal(t, d + 1);
}

// ---- results in CEL literal syntax ------------------------------------------
function fmtDouble(x) {
    if (Number.isNaN(x)) return 'double("NaN")';
    if (x === Infinity) return 'double("Infinity")';
    if (x === -Infinity) return 'double("-Infinity")';
    if (Object.is(x, -0)) return "-0.0";
    let s = String(x);
    if (!/[.e]/.test(s)) s += ".0";
    return s;
}
// Throws on values that cannot be written (lone surrogates, unknown kinds).
function fmt(v) {
    if (v === null) return "null";
    if (typeof v === "boolean") return String(v);
    if (typeof v === "bigint") return String(v);
    if (typeof v === "number") return fmtDouble(v);
    if (typeof v === "string") {
        if (/[\ud800-\udfff]/u.test(v)) throw new Error("lone surrogate");
        return quoteStr(v);
    }
    if (v instanceof Uint8Array) return quoteBytes(v);
    if (isCelUint(v)) return `${v.value}u`;
    if (isCelList(v)) return `[${[...v].map(fmt).join(", ")}]`;
    if (isCelMap(v)) return `{${[...v.entries()].map(([k, x]) => `${fmt(isCelUint(k) ? k : k)}: ${fmt(x)}`).join(", ")}}`;
    if (isCelType(v)) return v.name;
    throw new Error("unformattable value");
}

const env = { funcs: strings };
const compatEnv = { funcs: [...strings, ...celgoCompat] };
// Same outcome in both environments (values by their literal text).
function outcome(r) { if (isCelError(r)) return "error"; try { return fmt(r); } catch { return "unwritable"; } }
const seen = new Set();
let id = 0, attempts = 0, dropped = 0, deviations = 0;
const out = [];
while (id < count && attempts < count * 20) {
    attempts++;
    scope = [];
    const depth = randInt(1, 4);
    const t = chance(0.55) ? "bool" : randType(1);
    let expr;
    try { expr = gen(t, depth); } catch { dropped++; continue; }
    if (expr.length > 400 || seen.has(expr)) continue;
    seen.add(expr);
    const r = run(expr, {}, env);
    if (outcome(r) !== outcome(run(expr, {}, compatEnv))) { deviations++; continue; }
    let want;
    if (isCelError(r)) want = "error";
    else {
        try { want = fmt(r); } catch { dropped++; continue; }
    }
    out.push(JSON.stringify({ id: ++id, expr, want }));
}
process.stdout.write(out.join("\n") + "\n");
process.stderr.write(`gen.mjs: ${id} cases (seed ${seed}), ${dropped} dropped as unwritable, ${deviations} dropped where @bufbuild/cel deviates from cel-go (celgo-compat.mjs)\n`);
