/* Strings from a kubeconfig, the environment or the API server, as messages
 * show them, and the server URL's scheme.
 *
 *   dra_kube_q        Go's %q (strconv.Quote): where upstream's message quotes.
 *   dra_kube_v        the string as it is (Go's %v), unless %q would change it
 *                     (a control character such as CR, LF or ESC, another
 *                     unprintable rune, invalid UTF-8): then %q, so no input
 *                     can forge a line of output or drive a terminal.
 *   dra_kube_redacted a URL with the password of its userinfo replaced, as Go's
 *                     net/http prints request URLs: "https://user:***@host".
 *   dra_kube_server_tls
 *                     whether client-go talks TLS to this server
 *                     (rest.IsConfigTransportTLS on a config without TLS
 *                     settings, as clientcmd asks it before loading any
 *                     credential): the URL parses and its scheme is https.
 *                     "http://...", "host:port" and an unparsable URL are not.
 *   dra_kube_clean_ansi
 *                     clientcmd's cleanANSIEscapeCodes for an exec plugin's
 *                     installHint: letters, marks, numbers, punctuation,
 *                     symbols, spaces and \t\n\v\f\r kept, every other rune
 *                     written as "U+001B" (malloc'd; caller frees).
 *   dra_kube_strerror the text Go gives an errno (syscall.Errno.Error():
 *                     the C library's, its first letter in lower case).
 *   dra_kube_url_check
 *                     the error url.Parse gives for a server URL holding a
 *                     control character (kubectl fails with it before any
 *                     request), else NULL.
 *
 * Ownership: strings returned by dra_kube_q/v/redacted live in the caller's
 * arena (dra_kube_v returns s itself when it needs no quoting); errors are
 * the caller's to free.
 */
#ifndef DRA_KUBE_TEXT_H
#define DRA_KUBE_TEXT_H

#include <stdbool.h>

#include "../base/arena.h"
#include "../base/error.h"

const char *dra_kube_q(dra_arena *a, const char *s);
const char *dra_kube_v(dra_arena *a, const char *s);
const char *dra_kube_redacted(dra_arena *a, const char *url);
char *dra_kube_clean_ansi(const char *s);
const char *dra_kube_strerror(dra_arena *a, int err);
bool dra_kube_server_tls(const char *server);
DRA_MUST_USE dra_err *dra_kube_url_check(const char *url);

#endif
