package main

// Malformed expressions (cel-diff -syntax N): the compile errors of
// selectors that do not parse, compared byte for byte (message,
// line:column, the "| ..." snippet and the caret line) in both
// environments.  ANTLR's wording depends on its adaptive prediction and
// error recovery ("no viable alternative at input", "mismatched input",
// "extraneous input", "token recognition error at", "missing"), so the
// generator breaks well-formed selectors in the ways people do: cut
// short, a token dropped, doubled or swapped, a stray operator, bracket,
// dot, quote or reserved word put in, and a hand-written list of the
// classic mistakes.

import (
	"fmt"
	"math/rand"
	"strings"
	"time"
)

// Hand-written malformed selectors.
var syntaxCases = []string{
	".", "..", "...", "a.", "a..b", ".a", ".a.", "a.1", "a.(", "a.)", "a[", "a[]", "a[1", "a]", "a[1]]",
	"1..2", "1.", ".1", "1.e", "1e", "1e+", "0x", "0xg", "1u2", "1uu", "09", "0b1", "1_000",
	"?", "a ?", "a ? b", "a ? b :", "a ? : b", "? a : b", "a :", ":", "a ?? b",
	"[", "]", "[1,", "[1,,2]", "[,]", "[,1]", "[1 2]", "[1", "[?", "[?1]", "[?]",
	"{", "}", "{1:", "{1}", "{1:2", "{1:2,", "{:2}", "{1:2 3:4}", "{,}", "{?1:2}", "{?}",
	"(", ")", "()", "(1", "1)", "((1)", "(1))", "(,)", "(1,2)",
	"has(", "has()", "has(a", "has(a.b", "has(a.b,", "size(", "size(a,", "f(,)", "f(1,)", "f(1 2)", "a.f(", "a.f(1",
	"a.all(", "a.all(x,", "a.all(x, x >", "a.exists(x x)", "a.map(x,", "cel.bind(x,",
	"+", "-", "*", "/", "%", "!", "!!", "--", "- -", "-!", "!-", "1 +", "1 -", "1 *", "+1", "*1", "1 + * 2",
	"1 == ", "== 1", "1 === 1", "1 = 1", "1 =! 1", "1 <> 2", "1 << 2", "1 >> 2", "1 ** 2", "1 // 2",
	"a && ", "&& a", "a &&& b", "a & b", "a | b", "a || ", "|| a", "a ||| b", "a and b", "a or b", "not a",
	"a in", "in a", "in", "a in in b", "1 in [1", "!in",
	"'", "\"", "'abc", "\"abc", "'''", "'''abc", "\"\"\"abc\"\"", "r'", "b'", "br'", "rb\"", "u'x'", "f'x'",
	"'\\q'", "'\\x4'", "'\\u12'", "'\\U0001'", "'\\0'", "'\\400'", "b'\\u00e9'", "'\\", "'a\nb'",
	"`", "`a`", "a.`b", "a.`b`", "a.`b c`", "a.`b-c`", "a.?`b`", "`a`.b",
	"if", "else", "for", "var", "let", "null", "true", "while", "if a", "a.if", "a.null", "null.a", "true.a",
	"function", "import", "package x", "in.a", "as", "void", "loop", "namespace",
	"#", "$", "@", "~", "^", "&", "|", "=", ";", "\\", "a;", "a #", "a $ b", "a @ b", "1 ~ 2",
	"a.?", "a.?b", "a[?", "a[?]", "a[?1", "a.?1",
	"A{", "A{a", "A{a:", "A{a:1", "A{a:1,", "A{1:2}", "A{a 1}", ".A{", "A.B{", "A.{", "A{?a:1}",
	"device.", "device.attributes[", "device.attributes[\"x\"", "device.attributes[\"x\"].", "device.driver ==",
	"device.driver == 'x' &&", "device.capacity['x'].compareTo(quantity('1')) >=",
	"device.attributes['x'].y ==", "device.driver == \"x", "device.driver == 'x\" ", "device..driver",
	"device.attributes['x'] == 1 ||| true", "device.driver.startsWith('a'", "device.driver in ['a', 'b'",
	"1 2", "a b", "a b c", "1 + 2 3", "'a' 'b'", "a.b c.d", "(a) (b)", "[1] [2]", "true false",
	" ", "\t", "\n", "\n.", "a\n.", "a\n+\n", "1 +\n\n", "\n\n(", "a\n  ?", "/* c */", "// c", "a // c\n+",
	"é", "a é", "'é", "é.", "a.é", "😀", "a + 😀", "\u00a0", "a\u00a0b",
	"1.2.3", "1.2.", "1..", "..1", "1 . 2", "a.1.b", "1u.a", "1.0u", "-1u", "--1", "- 1", "-(", "-a.", "!a.",
	"a[1,2]", "a[:]", "a[1:2]", "a[]", "a[[", "a]]", "a)(", "a)", "a}", "a,", "a:", "a?", "a?.b", "a!", "a=",
	"a==", "a!=", "a<", "a<=", "a>", "a>=", "a+", "a*", "a/", "a%", "a-", "a&&", "a||",
	"a.\"b.c(d, [f]).g", "a.`b == 'c'", "a.b.\n(cd, e[f]).g", "a.\t(", "a.\t\r(", "a.\r\n(", "-'1 < 2",
	".size('s') == 1", ".startsWith('a')", ".nofn(1)", "'a'.startsWith(.string('a'))", "*a.b.c(d,x e[f]).g", "!=size(a..b) > 3 && c",
	"1 + as (4 -5) % 6", "for(a.all(1, x))", "as(1 +)", ".if(has(a))", "{for}", "{if: 1}", "{1: 2, a.all(1, x)}", "{?as}",
	"has(..a)", "[1].all(..x, x)", "x.all(.,1)", "cel.bind(.%v, 1, v)", "has(.)", "x.exists_one(.1, true)", "[1].map(x, ..x)",
	"A{[?].b}", "A{?}", "A{?.a}", "A{?1: 2}", "A{a: 1, ?}", "A{a: 1, ?,b: 2}", "A{a: 1, ?.b}", "A{?`a: 1}", "A{?: 1}",
	"has(a?.b)", "has(a?b)", "has(a.b?)", "has(a.b.?)", "has(a ? b :)", "has(a.b ?)", "[1].all(x ? y, x)", "has(a.?)",
	"{'a'!", "{'a'--", "{'a'-!", "{'a'!!", "[1 !]", "{'a' -}", "f(1 !)", "{'a' !a", "{'a'---1}",
	"has(a.b[)", "has(a[1)", "has(a[?)", "has(a[?1)", "has(a[])", "has(a[1 2])", "has(a.b[1] 2)",
	"[1.., 2]", "[1.., 2].a", "A{b: [1.., 2]}", "A{b: [1.., 2]}.a == 1", "{1: [1.., 2]}.a == 1", "[[1.., 2]].a == 1", "f([1.., 2]).a == 1", "f(x.., 2).a == 1", "A{b: 1.., 2}.a == 1",
	"A{a: 1, b:: [1.., 2]}.a == 1", "f(: [1.., 2]).a == 1", "*[1..].a", "*a[1.].b + 1", "[*a.b]", "-*a.b.c",
	"x.f({).?x..y()", "f({.?x..y()", "f({.?x..y})", "[.?x..y]",
	"A{?1: if}", "A{[?'d'].b(if)", "A{?: a.all(1, x)}", "A{?1: has(a), b: if}",
	// a limit in an entry's value: cel-go's visitor never runs
	"{1: has(1), 2: " + strings.Repeat("(", 300) + "1}", "{1: has(1), 2: [" + strings.Repeat("1 1, ", 40) + "]}",
	"A{a: has(1), b: " + strings.Repeat("a[ ", 40) + "}", "[has(1), " + strings.Repeat("[", 300) + "]",
	// past 100 syntax errors, the lexer's and the parser's counted in the order ANTLR reports them
	strings.Repeat("#", 99) + " a b # c", strings.Repeat("#", 99) + " a b c # d", strings.Repeat("#", 99) + " a. ) # b",
	strings.Repeat("#", 99) + " [1 2 # 3]", "[" + strings.Repeat("a[ , ", 40) + "]" + strings.Repeat("#", 70),
	strings.Repeat("#", 70) + " [" + strings.Repeat("a[ , ", 40) + "]", strings.Repeat("# ) ", 101),
	// every report counted, the visitor's too: "50 more errors were truncated"
	"[" + strings.Repeat("99999999999999999999, ", 150) + "1]",
	"[" + strings.Repeat("99999999999999999999, ", 150) + "1]" + strings.Repeat("#", 30),
	"[" + strings.Repeat("has(1), ", 40) + strings.Repeat("99999999999999999999, ", 120) + "1]",
}

// Pieces the generator puts in.
var syntaxJunk = []string{
	".", "..", "?", ":", ",", "(", ")", "[", "]", "{", "}", "+", "-", "*", "/", "%", "!", "==", "!=", "<",
	"<=", ">", ">=", "&&", "||", "in", "=", "&", "|", "'", "\"", "`", "#", "$", "@", "~", ";", "\\",
	"if", "for", "null", "true", "as", "1", "1u", "1.5", "0x", "1e", "'x'", "b'x'", "a", "x", ".?", "[?",
	"\n", " ", "é",
}

// Well-formed selectors the generator breaks.
var syntaxBase = []string{
	"device.driver == 'gpu.example.com'",
	"device.attributes['gpu.example.com'].model == 'a100' && device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
	"'x' in device.attributes['d'] ? device.attributes['d'].x : false",
	"device.attributes['d'].exists(k, k.startsWith('a')) || !has(device.attributes.d.n)",
	"[1, 2, 3].all(x, x > 0) && {'a': 1}['a'] == 1",
	"size(device.driver) > 3 && device.driver.matches('^[a-z]+$')",
	"cel.bind(v, device.attributes['d'].v, v.isGreaterThan(semver('1.2.3')))",
	"-1 < 2u * 3 + (4 - 5) % 6 / 7",
	"device.attributes[?'d'].orValue({}).?x.hasValue()",
	"A{a: 1, b: [1, 2]}.a == 1",
	"\"s\" + 'q' + b'b'.size() + r'\\d' + '''m'''",
	"a.b.c(d, e[f]).g",
}

type syntaxGen struct{ r *rand.Rand }

// tokens splits an expression into rough tokens (runs of letters and
// digits, quoted strings, single other characters) for mutation.
func roughTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		switch {
		case c == '\'' || c == '"':
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j < len(s) {
				j++
			}
		case isWord(c):
			for j < len(s) && isWord(s[j]) {
				j++
			}
		}
		if j > len(s) {
			j = len(s)
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (g *syntaxGen) junk() string { return syntaxJunk[g.r.Intn(len(syntaxJunk))] }

// next is one malformed (mostly) expression.
func (g *syntaxGen) next() string {
	t := roughTokens(syntaxBase[g.r.Intn(len(syntaxBase))])
	for k := 1 + g.r.Intn(2); k > 0 && len(t) > 0; k-- {
		i := g.r.Intn(len(t))
		switch g.r.Intn(6) {
		case 0: // cut short
			t = t[:i]
		case 1: // a token dropped
			t = append(t[:i:i], t[i+1:]...)
		case 2: // doubled
			t = append(t[:i+1:i+1], t[i:]...)
		case 3: // swapped with the next
			if i+1 < len(t) {
				t[i], t[i+1] = t[i+1], t[i]
			}
		default: // a stray piece put in
			t = append(t[:i:i], append([]string{g.junk()}, t[i:]...)...)
		}
	}
	return strings.Join(t, "")
}

// runSyntax compares the compile errors of the hand-written cases and
// count generated ones.  Returns the exit code.
func runSyntax(c, u *proc, seed int64, count int, report int, verbose bool, t0 time.Time) int {
	exprs := append([]string(nil), syntaxCases...)
	g := &syntaxGen{rand.New(rand.NewSource(seed))}
	seen := map[string]bool{}
	for _, e := range exprs {
		seen[e] = true
	}
	for tries := 0; len(exprs) < len(syntaxCases)+count && tries < 100*count; tries++ {
		if e := g.next(); !seen[e] && !strings.ContainsRune(e, 0) {
			seen[e] = true
			exprs = append(exprs, e)
		}
	}
	reqs := make([]request, len(exprs))
	for i, e := range exprs {
		reqs[i] = request{Expr: e}
	}
	cr, urs, err := askBoth(c, u, reqs)
	if err != nil {
		fmt.Fprintln(stderr, "cel-diff:", err)
		return 3
	}
	rejected, agree, failed := 0, 0, 0
	for i, e := range exprs {
		cu, uu := cr[i], urs[i]
		if uu.Panic != "" {
			fmt.Printf("cel-diff: upstream panics (not compared): %q: %s\n", e, uu.Panic)
			continue
		}
		if uu.Timeout != "" {
			fmt.Printf("cel-diff: upstream gave no answer within %v (not compared, the peer's failure): %q\n", answerTimeout, e)
			continue
		}
		if cu.Timeout != "" {
			cu.New.Error = "(" + cu.Timeout + ")"
		}
		if uu.New.Error != "" {
			rejected++
		}
		if cu.New.Error == uu.New.Error && cu.Stored.Error == uu.Stored.Error {
			agree++
			continue
		}
		failed++
		if verbose || failed <= report {
			fmt.Printf("DIFF %q\n  dra:      %s\n  upstream: %s\n", e,
				strings.ReplaceAll(cu.New.Error, "\n", "\n            "),
				strings.ReplaceAll(uu.New.Error, "\n", "\n            "))
		}
	}
	fmt.Printf("cel-diff: %d malformed expressions (%d written, %d generated, seed %d), %d rejected by upstream, in %.1fs\n",
		len(exprs), len(syntaxCases), len(exprs)-len(syntaxCases), seed, rejected, time.Since(t0).Seconds())
	fmt.Printf("%d passed, %d failed\n", agree, failed)
	if failed > 0 {
		return 1
	}
	return 0
}
