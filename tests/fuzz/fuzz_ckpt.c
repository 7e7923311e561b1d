/* Fuzz the checkpoint reader.  The input is tried twice: as a whole file
 * (where the checksum guards the data), and as the Data payload wrapped with
 * a correct checksum (so the entry decoder is reached).  Whatever parses must
 * serialize to bytes that parse again and serialize identically. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kubelet/checkpoint.h"

static void check(const char *data, size_t len)
{
    dra_checkpoint cp = DRA_CHECKPOINT_INIT;
    dra_err *e = dra_ckpt_parse(data, len, "fuzz", &cp);
    if (e) {
        if (cp.n != 0 || !e->msg)
            abort();
        dra_err_free(e);
        return;
    }
    dra_buf a = DRA_BUF_INIT, b = DRA_BUF_INIT;
    dra_ckpt_serialize(&cp, &a);
    dra_checkpoint again = DRA_CHECKPOINT_INIT;
    e = dra_ckpt_parse(a.data, a.len, "again", &again);
    if (e)
        abort();
    dra_ckpt_serialize(&again, &b);
    if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
        abort();
    dra_buf_free(&a);
    dra_buf_free(&b);
    dra_ckpt_free(&cp);
    dra_ckpt_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check((const char *)data, size);
    json_t *o = json_object();
    json_t *s = json_stringn_nocheck((const char *)data, size);
    json_object_set_new(o, "Data", s);
    json_object_set_new(o, "Checksum", json_integer((json_int_t)dra_crc32(data, size)));
    char *text = json_dumps(o, JSON_ALLOW_NUL);
    json_decref(o);
    if (text) {
        check(text, strlen(text));
        free(text);
    }
    return 0;
}
