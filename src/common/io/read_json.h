/* Private to src/common/io/: the JSON reader (read_json.c): whole texts,
 * and streams read a document at a time from a file descriptor. */
#ifndef DRA_IO_READ_JSON_H
#define DRA_IO_READ_JSON_H

#include "docs.h"

/* The JSON values of data[0..len), one after another, to r. */
DRA_MUST_USE dra_err *dra_read_json_stream(reader *r, const char *data, size_t len);

/* Input read from a descriptor as needed (owned data). */
typedef struct inbuf {
    int fd;
    const char *name;
    char *data;
    size_t start, len, cap; /* unread bytes are data[start..len) */
    size_t chunk;           /* bytes asked of each read */
    bool eof;
    bool keep; /* keep read bytes from the start: the first document may be YAML after all */
} inbuf;
/* Read more (a chunk, or as much again as is unread); a document past
 * DRA_MAX_INPUT_BYTES is an input error. */
DRA_MUST_USE dra_err *dra_inbuf_more(inbuf *b);
/* Read the rest of the input (YAML is read whole). */
DRA_MUST_USE dra_err *dra_inbuf_all(inbuf *b);
/* JSON values one at a time from b to r's callback (big Lists item by item). */
DRA_MUST_USE dra_err *dra_stream_json(reader *r, inbuf *b);

#endif
