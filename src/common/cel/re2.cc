// The C interface to RE2 declared in re2.h.
#include "re2.h"

#include <re2/re2.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

struct dra_re2 {
    RE2 re;
    dra_re2(const re2::StringPiece &p, const RE2::Options &o) : re(p, o) {}
};

[[noreturn]] static void out_of_memory()
{
    std::fputs("dra-tools: out of memory\n", stderr);
    std::abort();
}

static char *copy_arg(const std::string &s)
{
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (!p)
        out_of_memory();
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = '\0';
    return p;
}

extern "C" dra_re2 *dra_re2_new(const char *pattern, size_t len, int64_t max_mem, int *code, char **arg)
{
    try {
        RE2::Options o;
        o.set_encoding(RE2::Options::EncodingUTF8);
        o.set_log_errors(false);
        o.set_max_mem(max_mem);
        dra_re2 *r = new dra_re2(re2::StringPiece(pattern, len), o);
        *code = r->re.error_code();
        if (*code == RE2::NoError) {
            *arg = nullptr;
            return r;
        }
        *arg = copy_arg(r->re.error_arg());
        delete r;
        return nullptr;
    } catch (const std::bad_alloc &) {
        out_of_memory();
    }
}

extern "C" void dra_re2_free(dra_re2 *re)
{
    delete re;
}

extern "C" bool dra_re2_search(const dra_re2 *re, const char *text, size_t len, size_t start, size_t where[2])
{
    try {
        re2::StringPiece t(text, len), m;
        if (!re->re.Match(t, start, len, RE2::UNANCHORED, where ? &m : nullptr, where ? 1 : 0))
            return false;
        if (where) {
            where[0] = static_cast<size_t>(m.data() - text);
            where[1] = where[0] + m.size();
        }
        return true;
    } catch (const std::bad_alloc &) {
        out_of_memory();
    }
}

extern "C" int dra_re2_program_size(const dra_re2 *re)
{
    return re->re.ProgramSize();
}
