/* A stand-in libcupti for testing libroofline_inject.so without a GPU.
 * It implements the CUPTI functions the injection library calls, and hands
 * over records that the test program asks for (fake_kernel, fake_api, ...)
 * in buffers laid out like CUDA 13.0's CUPTI: the record sizes and field
 * offsets come from the test (-D flags computed from cudarc's bindings).
 * Records sit in the buffer at a fixed stride, which is how this stand-in's
 * own cuptiActivityGetNextRecord walks them. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*req_t)(uint8_t **, size_t *, size_t *);
typedef void (*done_t)(void *, uint32_t, uint8_t *, size_t, size_t);
static req_t g_req;
static done_t g_done;
static int g_enabled[64];
static uint8_t g_pending[1 << 20];
static size_t g_len;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
int fake_nvtx_initialized;

#define PUT(base, off, type, val) do { type v_ = (type)(val); memcpy((base) + (off), &v_, sizeof v_); } while (0)

int cuptiGetVersion(uint32_t *v) { *v = FAKE_VERSION; return 0; }
int cuptiGetResultString(int r, const char **s) { (void)r; *s = "CUPTI_ERROR_FAKE"; return 0; }
int cuptiActivityRegisterCallbacks(req_t r, done_t d) { g_req = r; g_done = d; return 0; }
int cuptiActivityEnable(uint32_t k) { if (k < 64) g_enabled[k] = 1; return 0; }
int cuptiActivityFlushPeriod(uint32_t ms) { (void)ms; return 0; }
int cuptiSetThreadIdType(uint32_t t) { (void)t; return 0; }
int cuptiGetTimestamp(uint64_t *t) {
  struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
  *t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec; return 0;
}
int cuptiActivityEnableRuntimeApi(uint32_t cbid, uint8_t e) { (void)e; return cbid < 500 ? 0 : 1; }
int cuptiActivityEnableDriverApi(uint32_t cbid, uint8_t e) { (void)e; return cbid < 900 ? 0 : 1; }
int cuptiGetCallbackName(uint32_t domain, uint32_t cbid, const char **name) {
  if (domain == 2 && cbid == 211) { *name = "cudaLaunchKernel_v7000"; return 0; }
  if (domain == 2 && cbid == 3) { *name = "cudaGetDevice_v3020"; return 0; }
  if (domain == 1 && cbid == 307) { *name = "cuLaunchKernel"; return 0; }
  return 1;
}
int cuptiActivityGetNumDroppedRecords(void *c, uint32_t s, size_t *d) { (void)c; (void)s; *d = 0; return 0; }
int cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, uint8_t **rec) {
  uint8_t *next = *rec ? *rec + STRIDE : buf;
  if (next + STRIDE > buf + valid) return 3; /* CUPTI_ERROR_MAX_LIMIT_REACHED */
  *rec = next; return 0;
}
int cuptiActivityFlushAll(uint32_t flag) {
  (void)flag;
  pthread_mutex_lock(&g_mu);
  if (g_len == 0 || !g_req) { pthread_mutex_unlock(&g_mu); return 0; }
  uint8_t *b; size_t size, max;
  g_req(&b, &size, &max);
  size_t n = g_len < size ? g_len : size;
  memcpy(b, g_pending, n);
  g_len = 0;
  pthread_mutex_unlock(&g_mu);
  g_done(NULL, 0, b, size, n);
  return 0;
}
int InitializeInjectionNvtx2(void *table) { fake_nvtx_initialized = table != NULL; return 1; }

static uint8_t *slot(uint32_t kind) {
  pthread_mutex_lock(&g_mu);
  uint8_t *r = g_pending + g_len;
  memset(r, 0, STRIDE);
  PUT(r, 0, uint32_t, kind);
  g_len += STRIDE;
  return r;
}
static void done_slot(void) { pthread_mutex_unlock(&g_mu); }

/* Only records of enabled kinds are produced, as with CUPTI. */
void fake_kernel(const char *name, uint64_t start, uint64_t end, uint32_t stream, uint32_t corr, uint32_t graph, uint64_t node) {
  if (!g_enabled[10]) return;
  uint8_t *r = slot(10);
  PUT(r, K_START, uint64_t, start); PUT(r, K_END, uint64_t, end);
  PUT(r, K_DEV, uint32_t, 0); PUT(r, K_CTX, uint32_t, 1); PUT(r, K_STREAM, uint32_t, stream);
  PUT(r, K_GRIDX, int32_t, 132); PUT(r, K_GRIDY, int32_t, 1); PUT(r, K_GRIDZ, int32_t, 1);
  PUT(r, K_BLOCKX, int32_t, 256); PUT(r, K_BLOCKY, int32_t, 1); PUT(r, K_BLOCKZ, int32_t, 1);
  PUT(r, K_REGS, uint16_t, 40); PUT(r, K_DSMEM, int32_t, 2048);
  PUT(r, K_CORR, uint32_t, corr); PUT(r, K_NAME, const char *, name);
  PUT(r, K_GRAPH, uint32_t, graph); PUT(r, K_NODE, uint64_t, node);
  done_slot();
}
void fake_api(uint32_t kind, uint32_t cbid, uint64_t start, uint64_t end, uint32_t tid, uint32_t corr) {
  if (!g_enabled[kind]) return;
  uint8_t *r = slot(kind);
  PUT(r, A_CBID, uint32_t, cbid); PUT(r, A_START, uint64_t, start); PUT(r, A_END, uint64_t, end);
  PUT(r, A_TID, uint32_t, tid); PUT(r, A_CORR, uint32_t, corr);
  done_slot();
}
void fake_marker(uint32_t id, uint32_t flags, uint64_t ts, uint32_t pid, uint32_t tid, const char *name) {
  if (!g_enabled[12]) return;
  uint8_t *r = slot(12);
  PUT(r, M_FLAGS, uint32_t, flags); PUT(r, M_TS, uint64_t, ts); PUT(r, M_ID, uint32_t, id);
  PUT(r, M_OBJKIND, uint32_t, 2); PUT(r, M_OBJID, uint32_t, pid); PUT(r, M_OBJID + 4, uint32_t, tid);
  PUT(r, M_NAME, const char *, name);
  done_slot();
}
void fake_memcpy(uint64_t bytes, uint64_t start, uint64_t end, uint32_t corr) {
  if (!g_enabled[1]) return;
  uint8_t *r = slot(1);
  PUT(r, C_KIND, uint8_t, 1); PUT(r, C_BYTES, uint64_t, bytes); PUT(r, C_START, uint64_t, start);
  PUT(r, C_END, uint64_t, end); PUT(r, C_STREAM, uint32_t, 7); PUT(r, C_CORR, uint32_t, corr);
  done_slot();
}
