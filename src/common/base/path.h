/* File-name arithmetic (no filesystem access). */
#ifndef DRA_BASE_PATH_H
#define DRA_BASE_PATH_H

/* The directory part of `path`: "." when it has no '/', "/" for "/name",
 * else everything before the last '/'.  Caller frees. */
char *dra_path_dir(const char *path);

/* The part after the last '/' (all of `path` when none); points into it. */
const char *dra_path_base(const char *path);

#endif
