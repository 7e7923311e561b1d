/* Publishing devices as ResourceSlices, streamed to a writer: what
 * `dra-slice build`, `discover` and `profile` print, where tests and
 * `dra-watch` can reach it.
 *
 * Ownership: everything given is borrowed; nothing is kept after a call.
 */
#ifndef DRA_SLICE_PUBLISH_H
#define DRA_SLICE_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/error.h"
#include "../io/stream.h"
#include "build.h"
#include "discover.h"
#include "profile.h"

/* The slices of r, in index order. */
DRA_MUST_USE dra_err *dra_slice_write(dra_writer *w, const dra_slice_result *r);

/* dra-slice build: the inventory read from paths (stdin when none), the
 * previous slices from prev (obsolete ones are named in r->obsolete), one
 * pool built and written to w, slice by slice once all have passed their
 * checks.  Files are read as they go, their devices held as text; stdin is
 * read whole (messages name the lines of its fields).  reading (may be
 * NULL) gives --validate and -R; relaxed fields are appended to *warnings
 * (may be NULL). */
DRA_MUST_USE dra_err *dra_slice_build_write(dra_writer *w, const dra_slice_opts *o, const char *const *prev,
                                            size_t nprev, char *const *paths, size_t npaths, const dra_objset *reading,
                                            dra_slice_result *r, dra_err **warnings);

/* "KEY=VAL,..." -> a v1 NodeSelector with one term of `In` expressions
 * (*out is new).  Input errors name no field: the caller knows where the
 * text came from. */
DRA_MUST_USE dra_err *dra_node_selector_from_labels(const char *spec, json_t **out);

/* nvidia-smi's time limit in milliseconds (1..3600000) from text; NULL or
 * "" leaves *ms unchanged.  Input errors name no field. */
DRA_MUST_USE dra_err *dra_discover_parse_timeout(const char *text, int *ms);

/* This host's name, lower-cased, into buf; false when it cannot be had. */
bool dra_discover_host_name(char *buf, size_t size);

/* The devices a discovery found, over every source. */
size_t dra_discovery_count(const dra_discovery *d);

/* With inventory: one inventory mapping per source that found devices.
 * Otherwise the ResourceSlices of one pool per source's default driver on
 * node, or, with driver set, of one pool holding every source. */
DRA_MUST_USE dra_err *dra_discovery_write(dra_writer *w, const dra_discovery *d, const char *driver, const char *node,
                                          bool inventory, const dra_features *f);

/* A synthetic fleet, node by node (a large fleet never sits in memory at
 * once); driver NULL: the profile's default. */
DRA_MUST_USE dra_err *dra_profile_write(dra_writer *w, const dra_profile_opts *o, const char *driver,
                                        const dra_features *f);

#endif
