/* Device discovery from sysfs and nvidia-smi (see discover.h). */
#include "model/quantity.h"
#include "discover.h"

#include "../base/proc.h"
#include "../base/hash.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/arena.h"
#include "../base/buf.h"
#include "nvidia.h"

#define RESOURCE_DOMAIN "resource.kubernetes.io/"

dra_err *dra_discover_parse_sources(const char *list, unsigned *out)
{
    *out = 0;
    char *copy = dra_xstrdup(list ? list : ""), *save = NULL;
    dra_err *e = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "pci") == 0)
            *out |= DRA_SRC_PCI;
        else if (strcmp(tok, "net") == 0)
            *out |= DRA_SRC_NET;
        else if (strcmp(tok, "nvidia") == 0)
            *out |= DRA_SRC_NVIDIA;
        else
            e = dra_err_param(
                dra_err_new(DRA_EXIT_INPUT, "unknown source '%s': known sources are pci, net, nvidia", tok), "source");
    }
    free(copy);
    if (!e && *out == 0)
        e = dra_err_param(dra_err_new(DRA_EXIT_INPUT, "no source given: known sources are pci, net, nvidia"), "source");
    return e;
}

/* ---- sysfs helpers ---- */

/* First line of a small sysfs file, trimmed; NULL when unreadable. Caller frees. */
static char *read_attr(const char *dir, const char *name)
{
    char *path = dra_xasprintf("%s/%s", dir, name);
    /* Non-blocking, regular files only: a FIFO or device under a made-up
     * --sysfs-root must not hang discovery (sysfs attributes are regular). */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    free(path);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return NULL;
    }
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    size_t len = strlen(buf);
    while (len > 0 && isspace((unsigned char)buf[len - 1]))
        buf[--len] = '\0';
    return dra_xstrdup(buf);
}

/* Sorted directory entries (no dot files); NULL when the directory is absent. */
static char **list_dir(const char *path, size_t *n)
{
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 32;
            v = dra_xrealloc(v, cap * sizeof *v);
        }
        v[(*n)++] = dra_xstrdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 1; i < *n; i++)
        for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    if (!v)
        v = dra_xcalloc(1, sizeof *v);
    return v;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Basename of a symlink's target; NULL when not a link. Caller frees. */
static char *link_basename(const char *dir, const char *name)
{
    char *path = dra_xasprintf("%s/%s", dir, name);
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof target - 1);
    free(path);
    if (n <= 0)
        return NULL;
    target[n] = '\0';
    const char *slash = strrchr(target, '/');
    return dra_xstrdup(slash ? slash + 1 : target);
}

/* Lexical normalisation of an absolute path ("a/./b/../c" -> "a/c"). */
static void clean_path(char *p)
{
    char *out = p, *in = p;
    while (*in) {
        if (in[0] == '/' && in[1] == '/') {
            in++;
        } else if (in[0] == '/' && in[1] == '.' && (in[2] == '/' || in[2] == '\0')) {
            in += 2;
        } else if (in[0] == '/' && in[1] == '.' && in[2] == '.' && (in[3] == '/' || in[3] == '\0')) {
            in += 3;
            while (out > p && *--out != '/')
                ;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    if (out == p) {
        p[0] = '/';
        p[1] = '\0';
    }
}

static bool is_bdf(const char *s)
{
    /* ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]$ (upstream verifyPCIBDFFormat) */
    static const char shape[] = "hhhh:hh:hh.h";
    if (strlen(s) != sizeof shape - 1)
        return false;
    for (size_t i = 0; shape[i]; i++) {
        if (shape[i] == 'h' ? !(isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'f')) : s[i] != shape[i])
            return false;
    }
    return true;
}

char *dra_discover_pcie_root(const char *sysfs_root, const char *bdf)
{
    if (!is_bdf(bdf))
        return NULL;
    const char *root = sysfs_root ? sysfs_root : "/sys";
    char *link = dra_xasprintf("%s/bus/pci/devices/%s", root, bdf);
    char target[PATH_MAX];
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) {
        free(link);
        return NULL;
    }
    target[n] = '\0';
    char *abs;
    if (target[0] == '/') {
        abs = dra_xstrdup(target);
    } else {
        *strrchr(link, '/') = '\0';
        abs = dra_xasprintf("%s/%s", link, target);
    }
    free(link);
    /* Compare against the cleaned root so "./x" and "x/" roots work too. */
    char *croot = root[0] == '/' ? dra_xstrdup(root) : NULL;
    if (!croot) {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            free(abs);
            return NULL;
        }
        croot = dra_xasprintf("%s/%s", cwd, root);
        if (abs[0] != '/') {
            char *a2 = dra_xasprintf("%s/%s", cwd, abs);
            free(abs);
            abs = a2;
        }
    }
    clean_path(croot);
    clean_path(abs);
    char *prefix = dra_xasprintf("%s/devices/", strcmp(croot, "/") == 0 ? "" : croot);
    char *result = NULL;
    size_t plen = strlen(prefix);
    const char *base = strrchr(abs, '/');
    if (strncmp(abs, prefix, plen) == 0 && strncmp(abs + plen, "pci", 3) == 0 && base && strcmp(base + 1, bdf) == 0) {
        const char *first = abs + plen;
        const char *end = strchr(first, '/');
        result = end ? dra_xstrndup(first, (size_t)(end - first)) : dra_xstrdup(first);
    }
    free(prefix);
    free(croot);
    free(abs);
    return result;
}

/* Hex id from sysfs ("0x10de") without the prefix, lower case. */
static void set_hex_attr(json_t *attrs, const char *key, const char *dir, const char *file)
{
    char *v = read_attr(dir, file);
    if (!v)
        return;
    const char *s = strncmp(v, "0x", 2) == 0 ? v + 2 : v;
    if (*s && strlen(s) <= 64) {
        char *low = dra_xstrdup(s);
        for (char *p = low; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        json_object_set_new(attrs, key, dra_nv_attr_str(low));
        free(low);
    }
    free(v);
}

static void set_pci_location(json_t *attrs, const char *sysfs_root, const char *bdf)
{
    if (!is_bdf(bdf))
        return;
    json_object_set_new(attrs, RESOURCE_DOMAIN "pciBusID", dra_nv_attr_str(bdf));
    char *root = dra_discover_pcie_root(sysfs_root, bdf);
    if (root)
        json_object_set_new(attrs, RESOURCE_DOMAIN "pcieRoot", dra_nv_attr_str(root));
    free(root);
}

static void set_numa(json_t *attrs, const char *dir)
{
    char *v = read_attr(dir, "numa_node");
    long long n;
    if (dra_parse_long(v, &n) && n >= 0)
        json_object_set_new(attrs, "numaNode", dra_nv_attr_int(n));
    free(v);
}

/* A DNS label from free text: lower case, other characters to '-'. */
static char *label_from(const char *prefix, const char *s, bool tag_changes)
{
    char *out = dra_xasprintf("%s%s", prefix, s);
    bool changed = false;
    for (char *p = out; *p; p++) {
        char c = (char)tolower((unsigned char)*p);
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
            c = '-';
        changed |= c != *p;
        *p = c;
    }
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '-')
        out[--n] = '\0';
    if (changed && tag_changes) {
        /* Keep distinct names distinct ("eth_0" vs "eth-0"). */
        uint32_t h = dra_fnv1a32_str(DRA_FNV32_OFFSET, s);
        if (n > 57)
            out[n = 57] = '\0';
        char *tagged = dra_xasprintf("%s-%05x", out, h & 0xfffff);
        free(out);
        return tagged;
    }
    if (n > 63)
        out[63] = '\0';
    return out;
}

/* ---- pci ---- */

static void discover_pci(const char *root, dra_discovered *d)
{
    char *dir = dra_xasprintf("%s/bus/pci/devices", root);
    size_t n;
    char **names = list_dir(dir, &n);
    if (!names) {
        d->note = dra_xasprintf("no PCI devices: %s not found", dir);
        free(dir);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char *devdir = dra_xasprintf("%s/%s", dir, names[i]);
        json_t *attrs = json_object();
        set_hex_attr(attrs, "vendorID", devdir, "vendor");
        set_hex_attr(attrs, "deviceID", devdir, "device");
        set_hex_attr(attrs, "class", devdir, "class");
        set_hex_attr(attrs, "subsystemVendorID", devdir, "subsystem_vendor");
        set_hex_attr(attrs, "subsystemDeviceID", devdir, "subsystem_device");
        set_numa(attrs, devdir);
        char *drv = link_basename(devdir, "driver");
        if (drv && strlen(drv) <= 64)
            json_object_set_new(attrs, "kernelDriver", dra_nv_attr_str(drv));
        free(drv);
        char *group = link_basename(devdir, "iommu_group");
        long long g;
        if (dra_parse_long(group, &g))
            json_object_set_new(attrs, "iommuGroup", dra_nv_attr_int(g));
        free(group);
        set_pci_location(attrs, root, names[i]);
        char *name = label_from("pci-", names[i], false);
        json_array_append_new(d->devices, json_pack("{s:s, s:o}", "name", name, "attributes", attrs));
        free(name);
        free(devdir);
    }
    if (n == 0)
        d->note = dra_xasprintf("no PCI devices in %s", dir);
    free_list(names, n);
    free(dir);
}

/* ---- net ---- */

static void discover_net(const char *root, dra_discovered *d)
{
    char *dir = dra_xasprintf("%s/class/net", root);
    size_t n;
    char **names = list_dir(dir, &n);
    if (!names) {
        d->note = dra_xasprintf("no network interfaces: %s not found", dir);
        free(dir);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char *ifdir = dra_xasprintf("%s/%s", dir, names[i]);
        char *type = read_attr(ifdir, "type");
        bool loopback = (type && strcmp(type, "772") == 0) || strcmp(names[i], "lo") == 0;
        free(type);
        if (loopback) {
            free(ifdir);
            continue;
        }
        json_t *attrs = json_object();
        if (strlen(names[i]) <= 64)
            json_object_set_new(attrs, "ifName", dra_nv_attr_str(names[i]));
        char *v = read_attr(ifdir, "address");
        if (v && *v && strlen(v) <= 64)
            json_object_set_new(attrs, "mac", dra_nv_attr_str(v));
        free(v);
        long long num;
        v = read_attr(ifdir, "mtu");
        if (dra_parse_long(v, &num))
            json_object_set_new(attrs, "mtu", dra_nv_attr_int(num));
        free(v);
        v = read_attr(ifdir, "speed"); /* EINVAL while the link is down */
        if (dra_parse_long(v, &num) && num > 0)
            json_object_set_new(attrs, "speed", dra_nv_attr_int(num));
        free(v);
        v = read_attr(ifdir, "operstate");
        if (v && *v && strlen(v) <= 64)
            json_object_set_new(attrs, "state", dra_nv_attr_str(v));
        free(v);
        char *pci = link_basename(ifdir, "device");
        json_object_set_new(attrs, "virtual", json_pack("{s:b}", "bool", pci == NULL));
        if (pci && is_bdf(pci)) {
            json_object_set_new(attrs, "pciAddress", dra_nv_attr_str(pci));
            char *devdir = dra_xasprintf("%s/device", ifdir);
            set_numa(attrs, devdir);
            free(devdir);
            set_pci_location(attrs, root, pci);
        }
        free(pci);
        char *name = label_from("net-", names[i], true);
        json_array_append_new(d->devices, json_pack("{s:s, s:o}", "name", name, "attributes", attrs));
        free(name);
        free(ifdir);
    }
    if (json_array_size(d->devices) == 0)
        d->note = dra_xasprintf("no network interfaces besides loopback in %s", dir);
    free_list(names, n);
    free(dir);
}

/* ---- nvidia: running nvidia-smi and reading its output (the devices are
 * built by nvidia.c, the XML read by xml.c) ---- */

static dra_err *run_text(const dra_nvidia_opts *o, const char *const *args, dra_buf *out)
{
    dra_buf_reset(out);
    return o->run(o->ctx, args, out);
}

static char *cmdline(const char *prog, const char *const *args)
{
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, prog);
    for (size_t i = 0; args[i]; i++) {
        dra_buf_putc(&b, ' ');
        dra_buf_puts(&b, args[i]);
    }
    return dra_buf_detach(&b);
}

static const char *const ARGS_XML[] = {"-q", "-x", NULL};
static const char *const ARGS_QUERY[] = {"--query-gpu=index,uuid,compute_cap", "--format=csv", NULL};
static const char *const ARGS_LGIP[] = {"mig", "-lgip", NULL};
static const char *const ARGS_LGIPP[] = {"mig", "-lgipp", NULL};
static const char *const ARGS_LGI[] = {"mig", "-lgi", NULL};
static const char *const ARGS_LIST[] = {"-L", NULL};

/* Run one command and read its table; errors name the command line. */
/* clang-format off */
#define READ_TABLE(args, parser, arr, n)                                                                       \
    do {                                                                                                       \
        if (!e) {                                                                                              \
            char *cl = cmdline(o->name, args);                                                                 \
            e = run_text(o, args, &out);                                                                       \
            if (!e)                                                                                            \
                e = parser(dra_buf_str(&out), out.len, cl, &(arr), &(n));                                      \
            free(cl);                                                                                          \
        }                                                                                                      \
    } while (0)
/* clang-format on */

dra_err *dra_discover_nvidia(const dra_nvidia_opts *o, json_t *devices, json_t *counter_sets)
{
    dra_buf out = DRA_BUF_INIT;
    dra_err *e = run_text(o, ARGS_XML, &out);
    if (e) {
        dra_buf_free(&out);
        return e;
    }
    dra_arena arena = DRA_ARENA_INIT;
    const char *why = NULL;
    dra_xnode *root = dra_xml_parse(dra_buf_str(&out), out.len, &arena, &why);
    if (!root || strcmp(root->name, "nvidia_smi_log") != 0) {
        dra_xml_free(root);
        dra_arena_free(&arena);
        dra_buf_free(&out);
        return dra_err_at(dra_err_new(DRA_EXIT_RUNTIME, "not nvidia-smi XML output: %s",
                                      why ? why : "the root element is not nvidia_smi_log"),
                          o->name, 0, 0, 0);
    }
    char buf1[256], buf2[256];
    char *driver_version = dra_nv_normalize_version(dra_xml_text(root, "driver_version", buf1, sizeof buf1));
    char *cuda_version = dra_nv_normalize_version(dra_xml_text(root, "cuda_version", buf2, sizeof buf2));
    size_t ngpus = 0;
    for (dra_xnode *g = root->child; g; g = g->next)
        ngpus += strcmp(g->name, "gpu") == 0;
    dra_nv_gpu *gpus = dra_xcalloc(ngpus ? ngpus : 1, sizeof *gpus);
    bool need_query = false, need_profiles = false, need_static = false;
    size_t n = 0;
    for (dra_xnode *x = root->child; x; x = x->next) {
        if (strcmp(x->name, "gpu") != 0)
            continue;
        dra_nv_gpu *g = &gpus[n];
        g->node = x;
        g->index = (int)n++;
        if (!dra_xml_long(x, "minor_number", &g->minor))
            g->minor = g->index;
        char s[256];
        const char *uuid = dra_xml_text(x, "uuid", s, sizeof s);
        g->uuid = uuid ? dra_xstrdup(uuid) : NULL;
        json_t *a = g->common = json_object();
        dra_nv_set_string_attr(a, "productName", dra_xml_text(x, "product_name", s, sizeof s));
        const char *brand = dra_xml_text(x, "product_brand", s, sizeof s);
        dra_nv_set_string_attr(a, "brand", dra_nvidia_brand(brand) ? dra_nvidia_brand(brand) : brand);
        const char *arch = dra_xml_text(x, "product_architecture", s, sizeof s);
        g->toggle = dra_nv_arch_toggles_mig(arch);
        dra_nv_set_string_attr(a, "architecture", arch);
        dra_nv_set_version_attr(a, "cudaComputeCapability", dra_xml_text(x, "compute_cap", s, sizeof s));
        g->have_cc = json_object_get(a, "cudaComputeCapability") != NULL;
        need_query |= !g->have_cc;
        if (driver_version)
            json_object_set_new(a, "driverVersion", json_pack("{s:s}", "version", driver_version));
        if (cuda_version)
            json_object_set_new(a, "cudaDriverVersion", json_pack("{s:s}", "version", cuda_version));
        /* GetAddressingModeAsString: ATS, HMM or None; absent when the
         * platform does not support it (N/A).  dra_xml_text hides "None". */
        dra_xnode *am = dra_xml_child(x, "addressing_mode");
        const char *mode = am ? dra_buf_str(&am->text) : NULL;
        while (mode && isspace((unsigned char)*mode))
            mode++;
        if (mode && (strncmp(mode, "None", 4) == 0 || strncmp(mode, "ATS", 3) == 0 || strncmp(mode, "HMM", 3) == 0))
            json_object_set_new(a, "addressingMode",
                                dra_nv_attr_str(mode[0] == 'N'   ? "None"
                                                : mode[0] == 'A' ? "ATS"
                                                                 : "HMM"));
        const char *bus = dra_xml_text(x, "pci/pci_bus_id", s, sizeof s);
        if (!bus)
            bus = x->id;
        if (bus && strlen(bus) >= 12) {
            /* NVML writes an 8-digit domain: "00000000:3B:00.0" -> "0000:3b:00.0". */
            char bdf[16];
            snprintf(bdf, sizeof bdf, "%s", bus + strlen(bus) - 12);
            for (char *p = bdf; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            set_pci_location(a, o->sysfs_root, bdf);
        }
        g->have_mem = dra_xml_mib(x, "fb_memory_usage/total", &g->mem);
        char m[32];
        const char *mig = dra_xml_text(x, "mig_mode/current_mig", m, sizeof m);
        g->mig_capable = mig && (strcmp(mig, "Enabled") == 0 || strcmp(mig, "Disabled") == 0);
        g->mig_enabled = mig && strcmp(mig, "Enabled") == 0;
        dra_xnode *migs = dra_xml_child(x, "mig_devices");
        bool has_migs = migs && dra_xml_child(migs, "mig_device");
        if (o->dynamic_mig)
            need_profiles |= g->mig_capable;
        else if (g->mig_enabled && has_migs)
            need_profiles = need_static = true;
    }
    dra_nv_tables t = {0};
    if (need_query) {
        READ_TABLE(ARGS_QUERY, dra_nvidia_parse_query, t.query, t.nquery);
        for (size_t i = 0; !e && i < n; i++) {
            for (size_t q = 0; q < t.nquery && !gpus[i].have_cc; q++) {
                bool same = gpus[i].uuid && t.query[q].uuid[0] ? strcmp(gpus[i].uuid, t.query[q].uuid) == 0
                                                               : t.query[q].index == gpus[i].index;
                if (same && t.query[q].compute_cap[0]) {
                    dra_nv_set_version_attr(gpus[i].common, "cudaComputeCapability", t.query[q].compute_cap);
                    gpus[i].have_cc = json_object_get(gpus[i].common, "cudaComputeCapability") != NULL;
                }
            }
        }
    }
    if (need_profiles) {
        READ_TABLE(ARGS_LGIP, dra_nvidia_parse_lgip, t.prof, t.nprof);
        if (o->dynamic_mig)
            READ_TABLE(ARGS_LGIPP, dra_nvidia_parse_lgipp, t.place, t.nplace);
    }
    if (need_static) {
        READ_TABLE(ARGS_LGI, dra_nvidia_parse_lgi, t.gi, t.ngi);
        READ_TABLE(ARGS_LIST, dra_nvidia_parse_list, t.listed, t.nlisted);
    }
    for (size_t i = 0; !e && i < n; i++) {
        const dra_nv_gpu *g = &gpus[i];
        if (o->dynamic_mig && g->mig_capable)
            dra_nv_emit_dynamic(g, &t, devices, counter_sets);
        else if (!o->dynamic_mig && g->mig_enabled)
            e = dra_err_append(e, dra_nv_emit_static(g, &t, o->name, devices));
        else
            dra_nv_emit_gpu(g, devices);
    }
    for (size_t i = 0; i < n; i++) {
        free(gpus[i].uuid);
        json_decref(gpus[i].common);
    }
    free(gpus);
    free(t.query);
    free(t.prof);
    free(t.place);
    free(t.gi);
    free(t.listed);
    free(driver_version);
    free(cuda_version);
    dra_xml_free(root);
    dra_arena_free(&arena);
    dra_buf_free(&out);
    return e;
}

/* Run `prog ARGS...` and collect its stdout.  Not a shell: prog is exec'd.
 * nvidia-smi hangs when a GPU or its driver is wedged; discovery must not
 * hang with it, so the child is killed after timeout_ms. */
static dra_err *run_nvidia_smi(const char *prog, const char *const *args, int timeout_ms, dra_buf *out)
{
    size_t nargs = 0;
    while (args[nargs])
        nargs++;
    char **argv = dra_xcalloc(nargs + 2, sizeof *argv);
    argv[0] = (char *)prog;
    for (size_t i = 0; i < nargs; i++)
        argv[i + 1] = (char *)args[i];
    char *cl = cmdline(prog, args);
    int ms = timeout_ms > 0 ? timeout_ms : 60000;
    dra_proc p = {.argv = argv, .timeout_ms = ms, .max_out = 64u << 20};
    dra_proc_status st;
    dra_err *e = dra_proc_run(&p, out, &st);
    if (!e && st.timed_out)
        e = dra_err_new(DRA_EXIT_RUNTIME, "%s did not finish within %d ms; killed it", cl, ms);
    else if (!e && st.too_much)
        e = dra_err_new(DRA_EXIT_RUNTIME, "%s: output larger than the limit of %zu bytes", prog, (size_t)64u << 20);
    else if (!e && (st.signal || st.code != 0))
        e = dra_err_new(DRA_EXIT_RUNTIME, "%s failed (%s %d)", cl, st.signal ? "signal" : "exit status",
                        st.signal ? st.signal : st.code);
    free(cl);
    free(argv);
    return e;
}

typedef struct smi_ctx {
    const char *prog;
    int timeout_ms;
} smi_ctx;

static dra_err *smi_run(void *ctx, const char *const *args, dra_buf *out)
{
    const smi_ctx *c = ctx;
    return run_nvidia_smi(c->prog, args, c->timeout_ms, out);
}

static bool in_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char *copy = dra_xstrdup(path), *save = NULL;
    bool found = false;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *full = dra_xasprintf("%s/%s", *dir ? dir : ".", prog);
        found = access(full, X_OK) == 0;
        free(full);
    }
    free(copy);
    return found;
}

static dra_err *discover_nvidia(const dra_discover_opts *o, const char *root, dra_discovered *d)
{
    const char *prog = o->nvidia_smi;
    if (!prog) {
        if (!in_path("nvidia-smi")) {
            d->note = dra_xstrdup("no NVIDIA GPUs: nvidia-smi not found in PATH");
            return NULL;
        }
        prog = "nvidia-smi";
    } else if (access(prog, X_OK) != 0) {
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "%s: %s", prog, strerror(errno)), "nvidia-smi");
    }
    smi_ctx ctx = {prog, o->nvidia_smi_timeout_ms};
    dra_nvidia_opts no = {prog, root, o->dynamic_mig, smi_run, &ctx};
    dra_err *e = dra_discover_nvidia(&no, d->devices, d->counter_sets);
    if (!e && json_array_size(d->devices) == 0)
        d->note = dra_xasprintf("no NVIDIA GPUs: %s lists none", prog);
    return e;
}

dra_err *dra_discover(const dra_discover_opts *opts, dra_discovery *out)
{
    memset(out, 0, sizeof *out);
    const char *root = opts->sysfs_root ? opts->sysfs_root : "/sys";
    unsigned sources = opts->sources ? opts->sources : DRA_SRC_ALL;
    static const struct {
        unsigned bit;
        const char *name, *driver;
    } all[] = {
        {DRA_SRC_PCI, "pci", "pci.dra-tools.io"},
        {DRA_SRC_NET, "net", "net.dra-tools.io"},
        {DRA_SRC_NVIDIA, "nvidia", "gpu.nvidia.com"},
    };
    for (size_t i = 0; i < 3; i++) {
        if (!(sources & all[i].bit))
            continue;
        dra_discovered *d = &out->v[out->n++];
        *d = (dra_discovered){all[i].name, all[i].driver, json_array(), json_array(), NULL};
        dra_err *e = NULL;
        if (all[i].bit == DRA_SRC_PCI)
            discover_pci(root, d);
        else if (all[i].bit == DRA_SRC_NET)
            discover_net(root, d);
        else
            e = discover_nvidia(opts, root, d);
        if (e) {
            dra_discovery_free(out);
            return e;
        }
    }
    return NULL;
}

void dra_discovery_free(dra_discovery *d)
{
    for (size_t i = 0; i < d->n; i++) {
        json_decref(d->v[i].devices);
        json_decref(d->v[i].counter_sets);
        free(d->v[i].note);
    }
    memset(d, 0, sizeof *d);
}
