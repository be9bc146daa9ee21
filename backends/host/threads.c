/* backends/host/threads.c - the host backend's threads: a pool of workers that run kernel
   launches, large copies and fills alongside the calling thread (host_internal.h).

   Why not OpenMP: libgomp's idle workers spin after every parallel region (its default wait
   policy), and a solver alternates short launches with OpenBLAS and FFTW calls whose own
   threads then compete with the spinning ones for the cores. On a 2-core machine a BPDN
   iteration ran three to seven times slower than with OMP_WAIT_POLICY=passive, which a library
   cannot set for its caller: libgomp reads it once, before the library is loaded. These
   workers spin for AG__SPIN_NS after a job, long enough to catch the next launch of a run of
   short ones, and then sleep on a condition variable.

   A job is offered to every worker; each that joins claims chunks of the items until none are
   left. The caller claims too, and once no item is left it closes the job: a worker that wakes
   after that does not join, and the caller waits only for the workers that did. So a launch
   never waits for a sleeping worker to wake, and a process forked while the workers exist
   (the child has none) still runs every job, on its calling thread.

   The state word holds the job's generation (high 32 bits), a closed bit and the count of
   workers inside the job; a worker joins with a compare-and-swap that fails when the
   generation moved on or the job is closed, so it never touches a job that is over. One job
   runs at a time: a thread that finds the pool busy (another thread's launch) runs its job
   alone, without waiting. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "host_internal.h"

#define AG__SPIN_NS 100000 /* how long an idle thread spins before it sleeps */
#define AG__CLOSED ((uint64_t)1 << 31)
#define AG__COUNT (AG__CLOSED - 1)

struct ag__host_job {
  ag__host_job_fn fn;
  void *ctx;
  size_t n, chunk;
  atomic_size_t next; /* the first item not yet claimed */
};

static struct {
  pthread_once_t once;
  int threads;               /* workers + the caller */
  atomic_flag busy;          /* a job is running */
  _Atomic uint64_t state;    /* generation << 32 | closed | workers inside */
  struct ag__host_job job;   /* the current job, written while no worker can join it */
  pthread_mutex_t lock;      /* for sleeping: wake and done */
  pthread_cond_t wake, done;
} pool = {.once = PTHREAD_ONCE_INIT, .busy = ATOMIC_FLAG_INIT, .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Spins until pred(arg) holds or AG__SPIN_NS pass; returns whether it holds. */
static bool spin_until(bool (*pred)(uint64_t, uint64_t), uint64_t arg) {
  uint64_t t0 = 0;
  for (unsigned i = 1;; i++) {
    if (pred(atomic_load_explicit(&pool.state, memory_order_acquire), arg))
      return true;
    relax();
    if ((i & 255) == 0) {
      uint64_t t = now_ns();
      if (t0 == 0)
        t0 = t;
      else if (t - t0 > AG__SPIN_NS)
        return false;
      sched_yield();
    }
  }
}

static bool new_generation(uint64_t s, uint64_t gen) { return (s >> 32) != gen; }
static bool nobody_inside(uint64_t s, uint64_t unused) { return (void)unused, (s & AG__COUNT) == 0; }

/* What every participant does: claims chunks until none are left. */
bool ag__host_claim(ag__host_job *j, size_t *begin, size_t *end) {
  size_t b = atomic_fetch_add_explicit(&j->next, j->chunk, memory_order_relaxed);
  if (b >= j->n)
    return false;
  *begin = b;
  *end = j->n - b < j->chunk ? j->n : b + j->chunk;
  return true;
}

static void *worker(void *unused) {
  (void)unused;
  uint64_t seen = atomic_load(&pool.state) >> 32;
  for (;;) {
    if (!spin_until(new_generation, seen)) {
      pthread_mutex_lock(&pool.lock);
      while (!new_generation(atomic_load(&pool.state), seen))
        pthread_cond_wait(&pool.wake, &pool.lock);
      pthread_mutex_unlock(&pool.lock);
    }
    uint64_t s = atomic_load_explicit(&pool.state, memory_order_acquire);
    seen = s >> 32;
    /* join the job unless it is closed or already replaced */
    while (!(s & AG__CLOSED) && (s >> 32) == seen &&
           !atomic_compare_exchange_weak_explicit(&pool.state, &s, s + 1, memory_order_acquire, memory_order_acquire))
      ;
    if ((s & AG__CLOSED) || (s >> 32) != seen)
      continue;
    pool.job.fn(pool.job.ctx, &pool.job);
    if ((atomic_fetch_sub_explicit(&pool.state, 1, memory_order_release) & AG__COUNT) == 1) {
      pthread_mutex_lock(&pool.lock);
      pthread_cond_broadcast(&pool.done);
      pthread_mutex_unlock(&pool.lock);
    }
  }
  return NULL;
}

/* ANYGPU_HOST_THREADS, else OMP_NUM_THREADS's first number, else the CPUs this process may
   run on. */
static int count_threads(void) {
  const char *names[] = {"ANYGPU_HOST_THREADS", "OMP_NUM_THREADS"};
  for (int i = 0; i < 2; i++) {
    const char *v = getenv(names[i]);
    char *end;
    long n = v != NULL ? strtol(v, &end, 10) : 0;
    if (v != NULL && end != v && n > 0)
      return n > 1024 ? 1024 : (int)n;
    if (v != NULL && *v != '\0')
      ag__host_core()->log(AG__LOG_WARN, "%s=%s is not a positive thread count; ignored", names[i], v);
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static void start(void) {
  pool.threads = count_threads();
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int started = 1;
  for (int i = 1; i < pool.threads; i++) {
    pthread_t t;
    if (pthread_create(&t, &attr, worker, NULL) != 0)
      break;
    started++;
  }
  pthread_attr_destroy(&attr);
  if (started < pool.threads)
    ag__host_core()->log(AG__LOG_WARN, "host backend: started %d of %d threads", started, pool.threads);
  pool.threads = started;
}

int ag__host_threads(void) {
  pthread_once(&pool.once, start);
  return pool.threads;
}

void ag__host_run(size_t n, size_t chunk, ag__host_job_fn fn, void *ctx) {
  if (chunk == 0)
    chunk = 1;
  if (n <= chunk || ag__host_threads() == 1 || atomic_flag_test_and_set_explicit(&pool.busy, memory_order_acquire)) {
    ag__host_job alone = {.fn = fn, .ctx = ctx, .n = n, .chunk = chunk};
    fn(ctx, &alone);
    return;
  }
  pool.job.fn = fn, pool.job.ctx = ctx, pool.job.n = n, pool.job.chunk = chunk;
  atomic_store_explicit(&pool.job.next, 0, memory_order_relaxed);
  uint64_t gen = (atomic_load(&pool.state) >> 32) + 1;
  atomic_store_explicit(&pool.state, gen << 32, memory_order_release);
  pthread_mutex_lock(&pool.lock);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);

  fn(ctx, &pool.job);
  /* nothing is left to claim: close the job, then wait for the workers inside it */
  if ((atomic_fetch_or_explicit(&pool.state, AG__CLOSED, memory_order_acq_rel) & AG__COUNT) != 0 &&
      !spin_until(nobody_inside, 0)) {
    pthread_mutex_lock(&pool.lock);
    while (!nobody_inside(atomic_load(&pool.state), 0))
      pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
  }
  atomic_flag_clear_explicit(&pool.busy, memory_order_release);
}
