/* Name formats and field errors, worded like upstream Kubernetes.
 *
 * Two layers:
 *  - field errors: a dra_errs list collects dra_err values whose `field` is
 *    the upstream field path ("spec.devices[3].name") and whose `msg` is the
 *    rest of field.Error's text ("Invalid value: \"Foo\": a lowercase RFC 1123
 *    label must ...").  The constructors append to a list, so validators
 *    report every problem they find.
 *  - name checks: DNS-1123 labels and subdomains, driver and pool names,
 *    qualified names (attribute keys), label names and values, UUIDs and
 *    C identifiers, each appending upstream's exact messages (sources:
 *    k8s.io/apimachinery/pkg/api/validate/content, pkg/util/validation/field,
 *    pkg/apis/resource/validation/validation.go).
 *
 * Field paths are built in a dra_buf with the dra_path_* helpers: a child
 * adds ".name", an index "[3]", a map key "[key]" (keys are not quoted, as
 * field.Path.String() prints them).
 *
 * Values are (pointer, length) pairs because JSON strings may hold NUL bytes.
 *
 * Ownership: a dra_errs owns its errors until dra_errs_take() hands the chain
 * to the caller (who frees it with dra_err_free).  Nothing else allocates.
 */
#ifndef DRA_MODEL_NAMES_H
#define DRA_MODEL_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../base/utf8.h"

/* ---- field errors (upstream field.Error types) ---- */

/* "Required value[: detail]" */
void dra_ferr_required(dra_errs *l, const char *field, const char *detail);
/* "Forbidden: detail" */
void dra_ferr_forbidden(dra_errs *l, const char *field, const char *detail);
/* "Internal error: detail" (field.InternalError) */
void dra_ferr_internal(dra_errs *l, const char *field, const char *detail);
/* "Invalid value: \"value\"[: detail]" (value quoted like Go's %q) */
void dra_ferr_invalid_str(dra_errs *l, const char *field, const char *value, size_t len, const char *detail);
/* The same with a detail of dlen bytes that may hold NUL bytes (a CEL
 * compiler's message echoing the expression) */
void dra_ferr_invalid_str_n(dra_errs *l, const char *field, const char *value, size_t len, const char *detail,
                            size_t dlen);
/* "Invalid value: 42[: detail]" */
void dra_ferr_invalid_int(dra_errs *l, const char *field, int64_t value, const char *detail);
/* "Invalid value: <rendered>[: detail]"; rendered is printed as is ("null", "true", a JSON text) */
void dra_ferr_invalid_raw(dra_errs *l, const char *field, const char *rendered, const char *detail);
/* "Too long: may not be more than N bytes" */
void dra_ferr_too_long(dra_errs *l, const char *field, long max);
/* "Too long: may not be more than N characters" (validate.MaxLength, in runes) */
void dra_ferr_too_long_chars(dra_errs *l, const char *field, long max);
/* "Too many: N: must have at most M items" */
void dra_ferr_too_many(dra_errs *l, const char *field, long actual, long max);
/* "Duplicate value: \"value\"" */
void dra_ferr_duplicate_str(dra_errs *l, const char *field, const char *value, size_t len);
/* "Duplicate value: <rendered>" */
void dra_ferr_duplicate_raw(dra_errs *l, const char *field, const char *rendered);
/* "Unsupported value: \"value\": supported values: \"A\", \"B\"" */
void dra_ferr_unsupported(dra_errs *l, const char *field, const char *value, size_t len, const char *const *supported,
                          size_t nsupported);
/* "Not found: \"value\"" */
void dra_ferr_not_found(dra_errs *l, const char *field, const char *value, size_t len);
/* "Not found: \"value\": detail" (an explanation set on the error) */
void dra_ferr_not_found_detail(dra_errs *l, const char *field, const char *value, size_t len, const char *detail);

/* Go's strconv.Quote: dra_go_quote() in base/utf8.h; values a field error
 * echoes (Invalid, Unsupported, Duplicate, Not found) go through
 * dra_go_quote_echo(), cut in the middle past DRA_ECHO_MAX bytes.
 * Upstream's field/errors.go prints them whole (bounded there by the API
 * server's 3 MiB request limit); values within the fields' own limits are
 * never that long. */

/* ---- field paths ---- */

/* Each returns the previous length, to be passed to dra_path_pop(). */
size_t dra_path_child(dra_buf *p, const char *name);
size_t dra_path_index(dra_buf *p, size_t i);
size_t dra_path_key(dra_buf *p, const char *key, size_t len);
void dra_path_pop(dra_buf *p, size_t mark);

/* ---- limits (pkg/apis/resource/types.go, util/validation) ---- */

#define DRA_DNS1123_LABEL_MAX 63
/* apimachinery's validation regexes and the words of IsQualifiedName
 * (pkg/util/validation), as its messages quote them */
#define DRA_DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DRA_DNS1123_SUBDOMAIN_FMT DRA_DNS1123_LABEL_FMT "(\\." DRA_DNS1123_LABEL_FMT ")*"
#define DRA_QUALIFIED_NAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
/* clang-format off */
#define DRA_QUALIFIED_NAME_ERR                                                                                   \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " \
    "character"
/* clang-format on */
#define DRA_DNS1123_SUBDOMAIN_MAX 253
#define DRA_DRIVER_NAME_MAX 63
#define DRA_POOL_NAME_MAX 253
#define DRA_DEVICE_MAX_DOMAIN_LENGTH 63
#define DRA_DEVICE_MAX_ID_LENGTH 32
#define DRA_LABEL_VALUE_MAX 63
#define DRA_QUALIFIED_NAME_MAX 63

/* ---- predicates (no messages) ---- */

bool dra_is_dns1123_label(const char *s, size_t len);     /* format and length */
bool dra_is_dns1123_subdomain(const char *s, size_t len); /* format and length */
bool dra_is_c_identifier(const char *s, size_t len);      /* format only */
/* Formats only (no length limit), the one copy of each regex:
 * [a-z0-9]([-a-z0-9]*[a-z0-9])?, the same starting with [a-z] (DNS-1035),
 * dot-separated DNS-1123 labels, and a qualified name's name part
 * ([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?). */
bool dra_is_dns1123_label_format(const char *s, size_t len);
bool dra_is_dns1035_label_format(const char *s, size_t len);
bool dra_is_dns1123_subdomain_format(const char *s, size_t len);
bool dra_is_qualified_name_part_format(const char *s, size_t len);
/* validation.IsQualifiedName: [DNS-1123 subdomain "/"]name, name <= 63. */
bool dra_is_qualified_name(const char *s, size_t len);

/* ---- checks that append upstream's field errors ---- */

/* corevalidation.ValidateDNS1123Label / ValidateDNS1123Subdomain: one Invalid per message. */
void dra_check_dns1123_label(dra_errs *l, const char *field, const char *s, size_t len);
void dra_check_dns1123_subdomain(dra_errs *l, const char *field, const char *s, size_t len);
/* Driver names (ValidateCSIDriverName): Required when empty, Too long over 63,
 * then the subdomain check on the lower-cased string. */
void dra_check_driver_name(dra_errs *l, const char *field, const char *s, size_t len);
/* Pool names: Required, Too long over 253, every '/'-separated segment a subdomain. */
void dra_check_pool_name(dra_errs *l, const char *field, const char *s, size_t len);
/* Node names (ValidateNodeName: a DNS subdomain). */
void dra_check_node_name(dra_errs *l, const char *field, const char *s, size_t len);
/* Device attribute/capacity keys: C identifier (<= 32) or <driver-like domain>/<C identifier>;
 * a name with more than one slash is not checked (1.36 and 1.37). */
void dra_check_qualified_name(dra_errs *l, const char *field, const char *s, size_t len);
/* The same from 1.38 on: more than one slash is one Invalid of the whole name,
 * "must not contain more than one slash" (kubernetes#141644). */
void dra_check_qualified_name_one_slash(dra_errs *l, const char *field, const char *s, size_t len);
/* matchAttribute/distinctAttribute: a qualified name that must contain '/'. */
void dra_check_fully_qualified_name(dra_errs *l, const char *field, const char *s, size_t len);
/* The declarative k8s-resource-fully-qualified-name format the API server
 * enforces in place of the handwritten check above (matchAttribute,
 * distinctAttribute, a derived attribute's name): "prefix: " before the
 * domain's messages, "prefix/name must not be empty", and a name with more
 * than one slash not checked at all (strfmt.go ResourceFullyQualifiedName). */
void dra_check_resource_fully_qualified_name(dra_errs *l, const char *field, const char *s, size_t len);
/* The same format from 1.38 on: more than one slash is one Invalid of the
 * whole name, "must not contain more than one slash" (k8s.io/apimachinery
 * v0.38.0-beta.0 pkg/api/validate/strfmt.go resourcesQualifiedName). */
void dra_check_resource_fully_qualified_name_one_slash(dra_errs *l, const char *field, const char *s, size_t len);
/* C identifier with the 32-byte limit (validateCIdentifier). */
void dra_check_c_identifier(dra_errs *l, const char *field, const char *s, size_t len);
/* Label names (metav1validation.ValidateLabelName; taint keys, binding conditions). */
void dra_check_label_name(dra_errs *l, const char *field, const char *s, size_t len);
/* Label values (IsValidLabelValue; taint and toleration values). */
void dra_check_label_value(dra_errs *l, const char *field, const char *s, size_t len);
/* The declarative formats of resource/v1 (k8s.io/apimachinery v0.37.2
 * pkg/api/validate/strfmt.go), which the API server enforces in place of
 * the handwritten rules where they cover them; their lengths are in
 * "bytes" (pkg/api/validate/content):
 *   short name: content.IsDNS1123Label (counter set names and references)
 *   long name: content.IsDNS1123Subdomain (a subrequest's deviceClassName)
 *   driver name caseless: required, at most 63, IsDNS1123SubdomainCaseless
 *     in its own words (allocation results, opaque configuration)
 *   pool name segments: ResourcePoolName, "segment i: ..." for each part,
 *     the part as the value (allocation results) */
void dra_check_short_name(dra_errs *l, const char *field, const char *s, size_t len);
void dra_check_long_name(dra_errs *l, const char *field, const char *s, size_t len);
void dra_check_driver_name_caseless(dra_errs *l, const char *field, const char *s, size_t len);
/* the format alone (content.IsDNS1123SubdomainCaseless, in bytes) */
void dra_check_long_name_caseless(dra_errs *l, const char *field, const char *s, size_t len);
/* validate.ExtendedResourceName (a DeviceClass's extendedResourceName) */
void dra_check_extended_resource_name(dra_errs *l, const char *field, const char *s, size_t len);
void dra_check_pool_name_segments(dra_errs *l, const char *field, const char *s, size_t len);
/* shareID: the declarative k8s-uuid format the API server enforces in place
 * of validation.go's validateUID (google/uuid's Validate). */
void dra_check_uuid(dra_errs *l, const char *field, const char *s, size_t len);

#endif
