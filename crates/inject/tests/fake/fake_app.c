/* A stand-in CUDA program: does what the CUDA driver and NVTX do with the
 * injection library (load it from CUDA_INJECTION64_PATH and call
 * InitializeInjection; load NVTX_INJECTION64_PATH and call
 * InitializeInjectionNvtx2), then "runs" kernels by asking the stand-in
 * CUPTI for records. argv[1]: exit | sigterm | fork | sleep (waits 60 s
 * for a signal, default actions left as they are). With FAKE_PRELOAD set,
 * it first loads that libcupti itself, as PyTorch does at import. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *need(void *h, const char *sym) {
  void *p = dlsym(h, sym);
  if (!p) { fprintf(stderr, "fake_app: no %s: %s\n", sym, dlerror()); exit(90); }
  return p;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "exit";
  const char *pre = getenv("FAKE_PRELOAD");
  if (pre && !dlopen(pre, RTLD_NOW | RTLD_GLOBAL)) { fprintf(stderr, "fake_app: %s\n", dlerror()); return 91; }
  void *inj = dlopen(getenv("CUDA_INJECTION64_PATH"), RTLD_NOW);
  if (!inj) { fprintf(stderr, "fake_app: %s\n", dlerror()); return 92; }
  int (*init)(void) = (int (*)(void))need(inj, "InitializeInjection");
  init();
  void *nv = dlopen(getenv("NVTX_INJECTION64_PATH"), RTLD_NOW);
  int (*ninit)(void *) = (int (*)(void *))need(nv, "InitializeInjectionNvtx2");
  int nvtx_ok = ninit((void *)0x1234);
  /* The CUPTI the injection library chose: the one loaded under the name
   * FAKE_CUPTI_USED (dlopen of a loaded path returns that instance). */
  void *cupti = dlopen(getenv("FAKE_CUPTI_USED"), RTLD_NOW | RTLD_NOLOAD);
  if (!cupti) { fprintf(stderr, "fake_app: the expected CUPTI is not loaded\n"); return 93; }
  void (*kernel)(const char *, uint64_t, uint64_t, uint32_t, uint32_t, uint32_t, uint64_t) =
      (void (*)(const char *, uint64_t, uint64_t, uint32_t, uint32_t, uint32_t, uint64_t))need(cupti, "fake_kernel");
  void (*api)(uint32_t, uint32_t, uint64_t, uint64_t, uint32_t, uint32_t) =
      (void (*)(uint32_t, uint32_t, uint64_t, uint64_t, uint32_t, uint32_t))need(cupti, "fake_api");
  void (*marker)(uint32_t, uint32_t, uint64_t, uint32_t, uint32_t, const char *) =
      (void (*)(uint32_t, uint32_t, uint64_t, uint32_t, uint32_t, const char *))need(cupti, "fake_marker");
  void (*memcpy_)(uint64_t, uint64_t, uint64_t, uint32_t) = (void (*)(uint64_t, uint64_t, uint64_t, uint32_t))need(cupti, "fake_memcpy");
  int *nvtx_seen = (int *)need(cupti, "fake_nvtx_initialized");
  if (nvtx_ok != 1 || *nvtx_seen != 1) { fprintf(stderr, "fake_app: NVTX not forwarded to CUPTI\n"); return 94; }

  int (*timestamp)(uint64_t *) = (int (*)(uint64_t *))need(cupti, "cuptiGetTimestamp");
  uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)syscall(SYS_gettid);
  uint64_t t0;
  timestamp(&t0); /* the records are stamped on CUPTI's clock, as the real ones are */
  marker(1, 2, t0, pid, tid, "step 0");                       /* start */
  for (uint32_t i = 0; i < 10; i++) {
    uint64_t s = t0 + 100000 + i * 10000;
    api(5, 211, s - 50000, s - 49000, tid, i + 1);             /* cudaLaunchKernel */
    kernel("_Z6vecaddPKfS0_Pfi", s, s + 1000 * (i + 1), 7 + i % 2, i + 1, 0, 0);
  }
  api(5, 3, t0 + 1, t0 + 2, tid, 99);                          /* cudaGetDevice: not recorded */
  api(4, 307, t0 + 500000, t0 + 501000, tid, 50);              /* cuLaunchKernel of a graph */
  kernel("graph_kernel", t0 + 600000, t0 + 601000, 13, 50, 3, 1);
  kernel("graph_kernel", t0 + 601000, t0 + 602500, 13, 50, 3, 2);
  memcpy_(4096, t0 + 50, t0 + 90, 60);
  marker(1, 4, t0 + 900000, pid, tid, NULL);                   /* end */
  fflush(stdout);
  if (strcmp(mode, "sigterm") == 0) {
    raise(SIGTERM);
    sleep(5);
    return 95;                                                 /* not reached */
  }
  if (strcmp(mode, "sleep") == 0) {
    printf("fake_app: kernels done, sleeping\n");
    fflush(stdout);
    sleep(60);
    return 96;
  }
  if (strcmp(mode, "fork") == 0) {
    pid_t c = fork();
    if (c == 0) exit(0);                                       /* runs exit handlers in the child */
    int st; waitpid(c, &st, 0);
  }
  return 0;
}
