/* base: arenas and buffers. */
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/hash.h"
#include "unit.h"

UNIT_TEST(arena_alignment_and_strings)
{
    dra_arena a = DRA_ARENA_INIT;
    for (int i = 1; i < 100; i++) {
        void *p = dra_arena_alloc(&a, (size_t)i);
        CHECK(((uintptr_t)p % 16) == 0);
    }
    CHECK_STR(dra_arena_strdup(&a, "hello"), "hello");
    CHECK_STR(dra_arena_strndup(&a, "hello", 3), "hel");
    CHECK_STR(dra_arena_printf(&a, "%d-%s", 7, "x"), "7-x");
    char *z = dra_arena_zalloc(&a, 32);
    CHECK(z[0] == 0 && z[31] == 0);
    void *big = dra_arena_alloc(&a, 1 << 20); /* larger than a block */
    memset(big, 1, 1 << 20);
    dra_arena_free(&a);
    CHECK(a.head == NULL);
}

UNIT_TEST(arena_reset_reuses_memory)
{
    dra_arena a = DRA_ARENA_INIT;
    dra_arena_alloc(&a, 100);
    void *first = a.head;
    dra_arena_reset(&a);
    CHECK(a.head == first); /* one block: kept as it is */
    CHECK_INT(a.total, 0);
    /* a round that needs several blocks ... */
    for (int i = 0; i < 10; i++)
        dra_arena_alloc(&a, 30000);
    dra_arena_reset(&a);
    void *coalesced = a.head;
    /* ... fits in one block after the reset, round after round */
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 10; i++)
            dra_arena_alloc(&a, 30000);
        CHECK(a.head == coalesced);
        dra_arena_reset(&a);
        CHECK(a.head == coalesced);
    }
    dra_arena_free(&a);
}

/* A mark frees what came after it, small and large allocations and new
 * blocks alike, and keeps what came before. */
UNIT_TEST(arena_mark_and_release)
{
    for (int start = 0; start < 3; start++) {
        dra_arena a = DRA_ARENA_INIT;
        char *before = NULL;
        if (start > 0) {
            before = dra_arena_strdup(&a, "kept");
            if (start > 1)
                dra_arena_alloc(&a, 40000); /* a one-off block after the current one */
        }
        size_t cap = dra_arena_capacity(&a), total = a.total;
        dra_arena_mark m = dra_arena_mark_get(&a);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 20; i++)
                memset(dra_arena_alloc(&a, i % 3 ? 100 : 30000), 7, 100);
            memset(dra_arena_alloc(&a, 1 << 20), 1, 1 << 20);
            dra_arena_mark inner = dra_arena_mark_get(&a);
            dra_arena_alloc(&a, 70000);
            dra_arena_release(&a, inner);
            dra_arena_release(&a, m);
            CHECK_INT(dra_arena_capacity(&a), cap);
            CHECK_INT(a.total, total);
            if (before)
                CHECK_STR(before, "kept");
        }
        char *after = dra_arena_strdup(&a, "new");
        CHECK_STR(after, "new");
        dra_arena_free(&a);
    }
}

UNIT_TEST(buffer_appends_and_detaches)
{
    dra_buf b = DRA_BUF_INIT;
    CHECK_STR(dra_buf_str(&b), "");
    dra_buf_puts(&b, "a");
    dra_buf_putc(&b, 'b');
    dra_buf_printf(&b, "%03d", 7);
    dra_buf_append(&b, "\0z", 2);
    CHECK_INT(b.len, 7);
    CHECK(memcmp(b.data, "ab007\0z", 7) == 0);
    dra_buf_reset(&b);
    CHECK_STR(dra_buf_str(&b), "");
    for (int i = 0; i < 10000; i++)
        dra_buf_puts(&b, "xy");
    CHECK_INT(b.len, 20000);
    char *s = dra_buf_detach(&b);
    CHECK_INT(strlen(s), 20000);
    CHECK(b.data == NULL);
    free(s);
}

/* An error list keeps every chain added, in order, counted; taking it
 * leaves it empty and reusable.  100,000 errors go in at their own cost. */
UNIT_TEST(error_list_appends_chains_in_order)
{
    dra_errs l = DRA_ERRS_INIT;
    dra_errs_add(&l, NULL);
    CHECK(dra_errs_take(&l) == NULL);
    dra_errs_add(&l, dra_err_append(dra_err_new(2, "a"), dra_err_new(2, "b")));
    dra_errs_add(&l, NULL);
    dra_errs_add(&l, dra_err_new(2, "c"));
    CHECK_INT(l.n, 3);
    dra_err *e = dra_errs_take(&l);
    CHECK(l.head == NULL && l.tail == NULL && l.n == 0);
    CHECK_INT(dra_err_count(e), 3);
    CHECK_STR(e->msg, "a");
    CHECK_STR(e->next->msg, "b");
    CHECK_STR(e->next->next->msg, "c");
    dra_err_free(e);
    for (int i = 0; i < 100000; i++)
        dra_errs_add(&l, dra_err_new(2, "x%d", i));
    CHECK_INT(l.n, 100000);
    CHECK_STR(l.tail->msg, "x99999");
    dra_errs_free(&l);
    CHECK(l.head == NULL);
}

/* Appending to a chain costs what is appended: the head remembers its end,
 * and finds it again when the chain was extended by hand. */
UNIT_TEST(error_append_keeps_order_and_finds_the_end)
{
    dra_err *e = NULL;
    for (int i = 0; i < 200000; i++)
        e = dra_err_append(e, dra_err_new(2, "e%d", i));
    CHECK_INT(dra_err_count(e), 200000);
    CHECK_STR(e->msg, "e0");
    /* extended by hand at its end: the next append goes after that */
    dra_err *t = e;
    while (t->next)
        t = t->next;
    CHECK_STR(t->msg, "e199999");
    t->next = dra_err_new(2, "hand");
    e = dra_err_append(e, dra_err_append(dra_err_new(2, "b1"), dra_err_new(2, "b2")));
    CHECK_STR(t->next->msg, "hand");
    CHECK_STR(t->next->next->msg, "b1");
    CHECK_STR(t->next->next->next->msg, "b2");
    CHECK(t->next->next->next->next == NULL);
    CHECK_INT(dra_err_count(e), 200003);
    dra_err_free(e);
}

/* Taking errors off the front leaves a chain that appends at its end. */
UNIT_TEST(error_pop_takes_the_first_alone)
{
    dra_err *e = NULL;
    CHECK(dra_err_pop(&e) == NULL);
    for (int i = 0; i < 5; i++)
        e = dra_err_append(e, dra_err_new(2, "e%d", i));
    dra_err *x = dra_err_pop(&e);
    CHECK_STR(x->msg, "e0");
    CHECK(x->next == NULL);
    CHECK_STR(e->msg, "e1");
    /* the popped error heads a chain of its own */
    x = dra_err_append(x, dra_err_new(2, "x1"));
    CHECK_INT(dra_err_count(x), 2);
    e = dra_err_append(e, dra_err_new(2, "e5"));
    CHECK_INT(dra_err_count(e), 5);
    dra_err *last = e;
    while (last->next)
        last = last->next;
    CHECK_STR(last->msg, "e5");
    /* down to one, then none */
    while (e->next)
        dra_err_free(dra_err_pop(&e));
    CHECK_STR(e->msg, "e5");
    e = dra_err_append(e, dra_err_new(2, "e6"));
    CHECK_STR(e->next->msg, "e6");
    dra_err_free(dra_err_pop(&e));
    dra_err_free(dra_err_pop(&e));
    CHECK(e == NULL);
    dra_err_free(x);
    /* a list's chain, taken, appends at its end too */
    dra_errs l = DRA_ERRS_INIT;
    dra_errs_add(&l, dra_err_new(2, "l0"));
    dra_errs_add(&l, dra_err_new(2, "l1"));
    e = dra_err_append(dra_errs_take(&l), dra_err_new(2, "l2"));
    CHECK_STR(e->next->next->msg, "l2");
    dra_err_free(e);
}

/* Upstream's truncateIfTooLong: limits under 16 count as 16; both ends
 * kept around "...", the head one byte longer when the rest is odd. */
UNIT_TEST(echo_cut_is_upstreams_rule)
{
    size_t head = 0, tail = 0;
    CHECK(!dra_echo_cut(16, 16, &head, &tail));
    CHECK(!dra_echo_cut(10, 4, &head, &tail));
    CHECK(dra_echo_cut(20, 4, &head, &tail));
    CHECK_INT(head, 7); /* "abcdefg...opqrst" */
    CHECK_INT(tail, 6);
    CHECK(dra_echo_cut(100, 20, &head, &tail));
    CHECK_INT(head + 3 + tail, 20);
    CHECK(dra_echo_cut((size_t)100 << 20, DRA_ECHO_MAX, &head, &tail));
    CHECK_INT(head, 8191);
    CHECK_INT(tail, 8190);
    /* an error line cuts its message past DRA_MSG_MAX */
    char *big = dra_xmalloc(DRA_MSG_MAX + 1001);
    memset(big, 'x', DRA_MSG_MAX + 1000);
    big[DRA_MSG_MAX + 1000] = 0;
    dra_err *e = dra_err_new(2, "%s", big);
    char *line = dra_err_format(e);
    CHECK(strlen(line) < DRA_MSG_MAX + 64);
    CHECK(strstr(line, "...(1000 more bytes)") != NULL);
    free(line);
    free(big);
    dra_err_free(e);
}

/* A message may hold NUL bytes (upstream echoes a CEL expression raw):
 * the error keeps them, the line and its printer carry them. */
UNIT_TEST(error_message_keeps_nul_bytes)
{
    dra_err *e = dra_err_field(dra_err_newn(2, "at: '\0' | \0x", 12), "spec.x");
    CHECK_INT(dra_err_msg_len(e), 12);
    size_t n = 0;
    char *line = dra_err_formatn(e, &n);
    CHECK_INT(n, 8 + 12);
    CHECK(memcmp(line, "spec.x: at: '\0' | \0x", n) == 0);
    free(line);
    char *out = NULL;
    size_t outn = 0;
    FILE *f = open_memstream(&out, &outn);
    CHECK(dra_err_put_line(f, "prog", e));
    dra_err_print(f, "prog", e);
    fclose(f);
    CHECK_INT(outn, 2 * (6 + 20 + 1));
    CHECK(memcmp(out, "prog: spec.x: at: '\0' | \0x\n", 27) == 0);
    free(out);
    /* a message replaced by dra_err_set_msg is measured again */
    e = dra_err_set_msg(e, dra_xstrdup("short"));
    CHECK_INT(dra_err_msg_len(e), 5);
    dra_err_free(e);
    e = dra_err_new(2, "%s", "plain");
    CHECK_INT(dra_err_msg_len(e), 5);
    dra_err_free(e);
}

/* A folding list keeps a hundred of a kind; the last one kept counts the
 * rest, so its memory follows the kinds of errors, not their number. */
UNIT_TEST(error_list_folds_a_flood)
{
    dra_errs l = DRA_ERRS_INIT;
    l.fold = DRA_ERRS_FOLD;
    for (int i = 0; i < 100000; i++) {
        dra_errs_add(&l, dra_err_field(dra_err_new(2, "unknown field \"x%d\"", i), "spec"));
        if (i % 1000 == 0)
            dra_errs_add(&l, dra_err_new(2, "another kind"));
    }
    CHECK_INT(l.n, 200);
    dra_err *e = dra_errs_take(&l);
    CHECK_INT(l.fold, DRA_ERRS_FOLD); /* kept for the list's next use */
    size_t all = 0, x = 0;
    const dra_err *last_x = NULL;
    for (const dra_err *y = e; y; y = y->next) {
        all += 1 + y->more;
        if (strncmp(y->msg, "unknown", 7) == 0)
            x++, last_x = y;
    }
    CHECK_INT(all, 100100);
    CHECK_INT(x, 100);
    CHECK(last_x && last_x->more == 99900 && strcmp(last_x->msg, "unknown field \"x99\"") == 0);
    dra_err_free(e);
    /* kinds: quoted text, numbers and brackets do not count; the field does */
    dra_err *a = dra_err_field(dra_err_new(2, "Invalid value: \"a\": bad"), "spec.devices[3].name");
    dra_err *b = dra_err_field(dra_err_new(2, "Invalid value: \"bcd\": bad"), "spec.devices[12].name");
    dra_err *c = dra_err_field(dra_err_new(2, "Invalid value: \"a\": bad"), "spec.pool.name");
    CHECK(dra_err_kind(a) == dra_err_kind(b));
    CHECK(dra_err_kind(a) != dra_err_kind(c));
    dra_err_free(a);
    dra_err_free(b);
    dra_err_free(c);
}

UNIT_TEST(read_limits)
{
    dra_buf b = DRA_BUF_INIT;
    dra_err *e = dra_buf_read_path(&b, "/no/such/file", 0);
    CHECK(e != NULL && e->code == DRA_EXIT_INPUT && strstr(e->msg, "No such file"));
    dra_err_free(e);
    dra_buf_free(&b);
    e = dra_buf_read_path(&b, "/proc/self/status", 10);
    CHECK(e != NULL && strstr(e->msg, "larger than the limit"));
    dra_err_free(e);
    dra_buf_free(&b);
}

UNIT_MAIN()

UNIT_TEST(fnv1a128_vectors)
{
    /* the published FNV-1a 128 values */
    dra_hash128 h = dra_fnv1a128(DRA_FNV128_OFFSET, "", 0);
    CHECK(h.hi == UINT64_C(0x6c62272e07bb0142) && h.lo == UINT64_C(0x62b821756295c58d));
    h = dra_fnv1a128(DRA_FNV128_OFFSET, "a", 1);
    CHECK(h.hi == UINT64_C(0xd228cb696f1a8caf) && h.lo == UINT64_C(0x78912b704e4a8964));
    h = dra_fnv1a128(dra_fnv1a128(DRA_FNV128_OFFSET, "foo", 3), "bar", 3);
    CHECK(h.hi == UINT64_C(0x343e1662793c64bf) && h.lo == UINT64_C(0x6f0d3597ba446f18));
    CHECK(!dra_hash128_eq(h, dra_fnv1a128(DRA_FNV128_OFFSET, "foobaz", 6)));
}

UNIT_TEST(strset_keeps_order_and_dedups)
{
    dra_strset s = {0};
    bool added;
    char name[32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 5000; i++) {
            int n = snprintf(name, sizeof name, "node-%d", i);
            CHECK_INT(dra_strset_add(&s, name, (size_t)n, &added), i);
            CHECK(added == (round == 0));
        }
    CHECK_INT(s.n, 5000);
    CHECK_STR(dra_strset_at(&s, 0), "node-0");
    CHECK_STR(dra_strset_at(&s, 4999), "node-4999");
    /* a prefix of a member is a string of its own */
    CHECK_INT(dra_strset_add(&s, "node-1", 5, &added), 5000);
    CHECK(added);
    CHECK_STR(dra_strset_at(&s, 5000), "node-");
    dra_strset_free(&s);
    CHECK(s.n == 0 && s.text == NULL);
}
