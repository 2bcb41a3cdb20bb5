/*
 * Diagnostic, not part of the product or of npm test (issue 29, session 13 `srvmem`): what a
 * process's RSS is made of at its peak, split between glibc (Node, V8, the bindings, the
 * statements' C++ allocations) and the jemalloc inside libduckdb. Every 100 ms it reads the RSS;
 * at each new peak it writes glibc's mallinfo2() and jemalloc's stats.* (allocated, active,
 * resident, mapped, retained) and options to $MEMSPLIT_OUT.<pid>.
 *   gcc -O2 -shared -fPIC -o /tmp/mem-split.so bench/experiments/mem-split.c -ldl -lpthread
 *   LD_PRELOAD=/tmp/mem-split.so MEMSPLIT_OUT=/tmp/split \
 *   MEMSPLIT_LIB=$(realpath node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so) \
 *   BENCH_MEM=1 npm run bench -- --size large --only reports
 * (not with the pages part: Chromium inherits the preload).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
typedef int (*mallctl_t)(const char *, void *, size_t *, void *, size_t);
static mallctl_t je = 0;
static double rss_mb(void) {
  FILE *f = fopen("/proc/self/statm", "r"); long a = 0, b = 0;
  if (f) { if (fscanf(f, "%ld %ld", &a, &b) != 2) b = 0; fclose(f); }
  return b * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}
static size_t jget(const char *n) { size_t v = 0, l = sizeof v; if (je && je(n, &v, &l, 0, 0) != 0) v = 0; return v; }
static void *loop(void *arg) {
  const char *out = getenv("MEMSPLIT_OUT"); const char *lib = getenv("MEMSPLIT_LIB");
  double peak = 0; char last[1024] = "";
  for (;;) {
    usleep(100000);
    if (!je && lib) { void *h = dlopen(lib, RTLD_NOLOAD | RTLD_LAZY); if (h) je = (mallctl_t)dlsym(h, "duckdb_je_mallctl"); }
    double r = rss_mb();
    if (r <= peak) continue;
    peak = r;
    struct mallinfo2 mi = mallinfo2();
    size_t ja = 0, jr = 0, jact = 0, jm = 0, jret = 0;
    if (je) { uint64_t e = 1; size_t l = sizeof e; je("epoch", &e, &l, &e, l);
      ja = jget("stats.allocated"); jact = jget("stats.active"); jr = jget("stats.resident"); jm = jget("stats.mapped"); jret = jget("stats.retained"); }
    const double M = 1048576.0;
    snprintf(last, sizeof last,
      "rss %.0f | glibc arena(brk+heaps) %.0f inuse %.0f free %.0f mmapped %.0f keepcost %.0f | je allocated %.0f active %.0f resident %.0f mapped %.0f retained %.0f%s\n",
      r, mi.arena / M, mi.uordblks / M, mi.fordblks / M, mi.hblkhd / M, mi.keepcost / M,
      ja / M, jact / M, jr / M, jm / M, jret / M, je ? "" : " (no je)");
    if (je) { ssize_t d = -9, m = -9; unsigned na = 0; _Bool bg = 0; size_t l = sizeof d; je("opt.dirty_decay_ms", &d, &l, 0, 0); l = sizeof m; je("opt.muzzy_decay_ms", &m, &l, 0, 0); l = sizeof na; je("opt.narenas", &na, &l, 0, 0); l = sizeof bg; je("background_thread", &bg, &l, 0, 0);
      size_t n = strlen(last); snprintf(last + n - 1, sizeof last - n, " | opt dirty %zd muzzy %zd narenas %u bg %d\n", d, m, na, (int)bg); }
    if (out) { char p[512]; snprintf(p, sizeof p, "%s.%d", out, (int)getpid()); FILE *f = fopen(p, "w"); if (f) { fputs(last, f); fclose(f); } }
  }
  return 0;
}
__attribute__((constructor)) static void start(void) {
  if (!getenv("MEMSPLIT_OUT")) return;
  pthread_t t; pthread_create(&t, 0, loop, 0); pthread_detach(t);
}
