/* tests/test_split.c — a batch split over a device set (split.h: ag_split_run) and azimuthal
   integration through it (azint.h: ag_integrate_split): refused arguments; on each device, a set
   of that device alone, compared with the host and with ag_integrate; and, with
   ANYGPU_TEST_MULTI set and two pocl devices (POCL_DEVICES="pthread pthread"), both at once.

   The callbacks run on the split's threads, where a failed ck_assert would end the test from
   the wrong thread: they write what they see into a record under its lock, and the test's own
   thread asserts on the record afterwards. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

/* ---- a record of what the callbacks saw ---------------------------------------------------- */

enum { MAX_SET = 8, DEFAULT_CHUNK = 16 };

typedef struct record record;
/* A chunk's own work, run after run_cb has checked and counted the chunk. */
typedef ag_status (*work_fn)(const ag_split_chunk *c, record *r);

/* What setup() makes for a device: the items its chunks held, summed by teardown(). */
typedef struct device_state {
  int device;
  size_t items;
} device_state;

struct record {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  /* The call: the set's devices, the batch and its effective chunk size, what was given. */
  int ndev;
  ag_device *dev[MAX_SET];
  size_t n, chunk, given_chunk; /* given_chunk: opt->chunk, which may be 0 */
  bool has_in, has_out;
  ag_dtype in_dtype, out_dtype;
  int in_ndim, out_ndim;
  size_t in_shape[AG_MAX_DIMS], out_shape[AG_MAX_DIMS];
  work_fn work;
  int fail_device;   /* the device whose setup fails (fail_setup), or whose run fails */
  bool fail_setup;   /* setup() of fail_device fails */
  size_t fail_first; /* run() fails at the chunk starting there, on fail_device; SIZE_MAX never */
  int fail_run;      /* or at fail_device's fail_run-th chunk; 0 never */
  /* What the callbacks saw. */
  int setups[MAX_SET], runs[MAX_SET], teardowns[MAX_SET];
  size_t items[MAX_SET];        /* items run() was given, per device */
  size_t torn_down_items;       /* the sum teardown() made of its devices' states */
  void *state[MAX_SET];         /* what setup() made */
  ag_queue *queue[MAX_SET];     /* the first chunk's queue */
  pthread_t thread[MAX_SET];    /* setup()'s thread */
  unsigned char *seen;          /* per item, the times run() was given it */
  bool failed;                  /* the failing callback has returned */
  size_t failed_first;          /* the first item of the chunk whose run() failed */
  int runs_after_failure;       /* run() calls that started after it */
  bool entered[MAX_SET];        /* run() was entered on that device (the rendezvous) */
  char callback_message[1024];  /* ag_last_error() of the failing callback's call */
  char problem[1024];           /* the first thing a callback found wrong; "" when none */
};

/* Keeps the first problem a callback finds; the caller holds r->lock. */
__attribute__((format(printf, 2, 3))) static void note(record *r, const char *fmt, ...) {
  if (r->problem[0] != '\0')
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->problem, sizeof r->problem, fmt, ap);
  va_end(ap);
}

/* A record for a run of @p n items over @p set in chunks of @p chunk (0: the default). */
static void record_init(record *r, const ag_device_set *set, size_t n, size_t chunk) {
  memset(r, 0, sizeof *r);
  ck_assert_int_eq(pthread_mutex_init(&r->lock, NULL), 0);
  ck_assert_int_eq(pthread_cond_init(&r->changed, NULL), 0);
  CHECK_OK(ag_device_set_count(set, &r->ndev));
  ck_assert_int_le(r->ndev, MAX_SET);
  for (int d = 0; d < r->ndev; d++)
    CHECK_OK(ag_device_set_get(set, d, &r->dev[d]));
  r->n = n;
  r->chunk = chunk == 0 ? DEFAULT_CHUNK : chunk;
  r->given_chunk = chunk;
  r->fail_device = -1;
  r->fail_first = SIZE_MAX;
  r->seen = calloc(n > 0 ? n : 1, 1);
  ck_assert_ptr_nonnull(r->seen);
}

static void record_free(record *r) {
  free(r->seen);
  pthread_cond_destroy(&r->changed);
  pthread_mutex_destroy(&r->lock);
}

static int device_index(const record *r, const ag_device *dev) {
  for (int d = 0; d < r->ndev; d++)
    if (r->dev[d] == dev)
      return d;
  return -1;
}

/* A call that fails with a message of its own: ag_fill refuses 0.5 for an i32 array. Keeps
   that message in r->callback_message. */
static ag_status failing_call(record *r, ag_device *dev, ag_queue *q) {
  size_t one = 1;
  ag_array *a = NULL;
  ag_status st = ag_array_create(dev, AG_I32, 1, &one, &a);
  if (st == AG_OK)
    st = ag_fill(q, a, 0.5);
  pthread_mutex_lock(&r->lock);
  snprintf(r->callback_message, sizeof r->callback_message, "%s", ag_last_error());
  if (st == AG_OK)
    note(r, "ag_fill of 0.5 into an i32 array succeeded");
  r->failed = true;
  pthread_mutex_unlock(&r->lock);
  ag_array_free(a);
  return st == AG_OK ? AG_ERR_DEVICE : st;
}

static ag_status setup_cb(ag_device *dev, int device, void *user, void **state) {
  record *r = user;
  pthread_mutex_lock(&r->lock);
  if (device < 0 || device >= r->ndev || r->dev[device] != dev) {
    note(r, "setup() was given device %d, which is not that device of the set", device);
    pthread_mutex_unlock(&r->lock);
    return AG_ERR_DEVICE;
  }
  r->setups[device]++;
  r->thread[device] = pthread_self();
  bool fail = r->fail_setup && device == r->fail_device;
  pthread_mutex_unlock(&r->lock);
  if (fail)
    return failing_call(r, dev, NULL);
  device_state *s = calloc(1, sizeof *s);
  if (s == NULL)
    return AG_ERR_OUT_OF_MEMORY;
  s->device = device;
  pthread_mutex_lock(&r->lock);
  r->state[device] = s;
  pthread_mutex_unlock(&r->lock);
  *state = s;
  return AG_OK;
}

static void teardown_cb(ag_device *dev, void *state, void *user) {
  record *r = user;
  pthread_mutex_lock(&r->lock);
  int d = device_index(r, dev);
  if (d < 0) {
    note(r, "teardown() was given a device outside the set");
  } else {
    r->teardowns[d]++;
    if (state != r->state[d] || state == NULL)
      note(r, "teardown() of device %d was given the state %p, setup() made %p", d, state, r->state[d]);
    else
      r->torn_down_items += ((device_state *)state)->items;
  }
  pthread_mutex_unlock(&r->lock);
  free(state);
}

/* @p a must be [count, shape...] of @p t on @p dev; the caller holds r->lock. */
static void check_chunk_array(record *r, const char *what, const ag_array *a, const ag_device *dev, ag_dtype t,
                              size_t count, int ndim, const size_t *shape) {
  if (ag_array_dtype(a) != t || ag_array_ndim(a) != ndim + 1 || ag_array_device(a) != dev ||
      ag_array_dim(a, 0) != count) {
    note(r, "chunk->%s is %s, %d dims of which the first is %zu, expected %s, %d dims, the first %zu", what,
         ag_dtype_name(ag_array_dtype(a)), ag_array_ndim(a), ag_array_dim(a, 0), ag_dtype_name(t), ndim + 1, count);
    return;
  }
  for (int k = 0; k < ndim; k++)
    if (ag_array_dim(a, k + 1) != shape[k])
      note(r, "chunk->%s's dimension %d is %zu, expected %zu", what, k + 1, ag_array_dim(a, k + 1), shape[k]);
}

/* Checks a chunk against the contract and counts it, then runs the test's work on it. */
static ag_status run_cb(const ag_split_chunk *c, void *user) {
  record *r = user;
  pthread_mutex_lock(&r->lock);
  int d = c->device;
  if (d < 0 || d >= r->ndev || c->dev != r->dev[d]) {
    note(r, "run() was given device %d, which is not that device of the set", d);
    pthread_mutex_unlock(&r->lock);
    return AG_ERR_DEVICE;
  }
  if (c->queue == NULL || ag_queue_device(c->queue) != c->dev)
    note(r, "device %d: chunk->queue is not a queue of chunk->dev", d);
  else if (r->queue[d] == NULL)
    r->queue[d] = c->queue;
  else if (r->queue[d] != c->queue)
    note(r, "device %d: chunks came with different queues (one queue for the chunks' work)", d);
  if (r->setups[d] > 0 && !pthread_equal(r->thread[d], pthread_self()))
    note(r, "device %d: run() was called on another thread than its setup()", d);
  if (c->state != r->state[d])
    note(r, "device %d: chunk->state is %p, setup() made %p", d, c->state, r->state[d]);
  size_t want = c->first < r->n ? (r->n - c->first < r->chunk ? r->n - c->first : r->chunk) : 0;
  if (c->first % r->chunk != 0 || c->count != want || want == 0) {
    note(r, "device %d: the chunk is items [%zu, %zu) of %zu in chunks of %zu", d, c->first, c->first + c->count,
         r->n, r->chunk);
  } else {
    for (size_t i = c->first; i < c->first + c->count; i++)
      r->seen[i]++;
  }
  if (r->has_in)
    check_chunk_array(r, "in", c->in, c->dev, r->in_dtype, c->count, r->in_ndim, r->in_shape);
  else if (c->in != NULL)
    note(r, "chunk->in should be NULL for a batch without input");
  if (r->has_out)
    check_chunk_array(r, "out", c->out, c->dev, r->out_dtype, c->count, r->out_ndim, r->out_shape);
  else if (c->out != NULL)
    note(r, "chunk->out should be NULL for a batch without output (out NULL)");
  if (r->failed)
    r->runs_after_failure++;
  r->runs[d]++;
  r->items[d] += c->count;
  if (c->state != NULL)
    ((device_state *)c->state)->items += c->count;
  bool fail = d == r->fail_device && (c->first == r->fail_first || r->runs[d] == r->fail_run);
  if (fail)
    r->failed_first = c->first;
  pthread_mutex_unlock(&r->lock);
  if (fail)
    return failing_call(r, c->dev, c->queue);
  return r->work != NULL ? r->work(c, r) : AG_OK;
}

/* Plugs the record's callbacks into @p opt (setup and teardown when @p with_state), copies the
   shapes into the record, and runs the split. */
static ag_status run_split(record *r, const ag_device_set *set, const void *in, void *out, ag_split_options *opt,
                           bool with_state, size_t *device_items) {
  opt->run = run_cb;
  opt->setup = with_state ? setup_cb : NULL;
  opt->teardown = with_state ? teardown_cb : NULL;
  opt->user = r;
  opt->device_items = device_items;
  r->has_in = in != NULL;
  r->has_out = out != NULL;
  r->in_dtype = opt->in_dtype, r->out_dtype = opt->out_dtype;
  r->in_ndim = opt->in_ndim, r->out_ndim = opt->out_ndim;
  memcpy(r->in_shape, opt->in_shape, sizeof r->in_shape);
  memcpy(r->out_shape, opt->out_shape, sizeof r->out_shape);
  return ag_split_run(set, r->n, in, out, opt);
}

/* Device @p d's setup(), run() (-1: any number) and teardown() must have been called @p setups,
   @p runs and @p teardowns times; @p when says after what. */
static void check_calls(const record *r, int d, int setups, int runs, int teardowns, const char *when) {
  ck_assert_msg(r->setups[d] == setups && (runs < 0 || r->runs[d] == runs) && r->teardowns[d] == teardowns,
                "%s: %s, device %d: setup() was called %d times, run() %d and teardown() %d, expected %d, %d%s and %d",
                test_label(), when, d, r->setups[d], r->runs[d], r->teardowns[d], setups, runs < 0 ? 0 : runs,
                runs < 0 ? " or more" : "", teardowns);
}

/* After a split that succeeded: nothing wrong seen, every item run once, one setup() and one
   teardown() per device (when they were given), and @p device_items the items each ran. */
static void check_complete(const record *r, bool with_state, const size_t *device_items) {
  ck_assert_msg(r->problem[0] == '\0', "%s: %s", test_label(), r->problem);
  for (size_t i = 0; i < r->n; i++)
    ck_assert_msg(r->seen[i] == 1, "%s: item %zu of %zu was run %d times, in chunks of %zu", test_label(), i, r->n,
                  r->seen[i], r->chunk);
  size_t sum = 0;
  for (int d = 0; d < r->ndev; d++) {
    if (with_state)
      check_calls(r, d, 1, -1, 1, "a split that succeeded");
    ck_assert_msg(device_items[d] == r->items[d], "%s: device_items[%d] is %zu, but run() was given %zu items there",
                  test_label(), d, device_items[d], r->items[d]);
    sum += device_items[d];
  }
  ck_assert_msg(sum == r->n, "%s: device_items sum to %zu, expected %zu", test_label(), sum, r->n);
  if (with_state)
    ck_assert_msg(r->torn_down_items == r->n, "%s: teardown() summed %zu items, expected %zu", test_label(),
                  r->torn_down_items, r->n);
}

/* The set of test device @p i alone, by its spec. */
static ag_device_set *one_device_set(int i, ag_device **dev) {
  *dev = test_device(i);
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select(test_spec(i), &set));
  int count = 0;
  ag_device *first = NULL;
  CHECK_OK(ag_device_set_count(set, &count));
  CHECK_OK(ag_device_set_get(set, 0, &first));
  ck_assert_msg(count == 1 && first == *dev, "%s: the set \"%s\" is not that one device", test_label(), test_spec(i));
  return set;
}

/* @p arg stands in ag_last_error() as a word of its own ("run" in "opt->run", not in
   "ag_split_run"), and the message names @p fn. */
static void check_names(const char *fn, const char *arg) {
  const char *msg = ag_last_error();
  size_t len = strlen(arg);
  bool found = false;
  for (const char *p = strstr(msg, arg); p != NULL && !found; p = strstr(p + 1, arg)) {
    bool before = p == msg || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool after = !(isalnum((unsigned char)p[len]) || p[len] == '_');
    found = before && after;
  }
  ck_assert_msg(found && strstr(msg, fn) != NULL, "%s: the message \"%s\" should name %s and its argument %s",
                test_label(), msg, fn, arg);
}

/* ag_split_run(@p set, @p n, @p in, @p out, @p o) must return @p want naming @p arg. */
static void check_refused(const ag_device_set *set, size_t n, const void *in, void *out, const ag_split_options *o,
                          ag_status want, const char *arg) {
  ag_status st = ag_split_run(set, n, in, out, o);
  ck_assert_msg(st == want, "%s: refusing %s: ag_split_run returned %s, expected %s (last error: \"%s\")",
                test_label(), arg, ag_status_name(st), ag_status_name(want), ag_last_error());
  check_names("ag_split_run", arg);
}

/* ---- a batch of u16 items converted to f32, plus their chunk's first index ---------------- */

/* Items of 2 x 3 x 2 u16 elements (three dims: chunks are 4-D, AG_MAX_DIMS). */
enum { ITEM = 12 };
static const size_t item_shape[3] = {2, 3, 2};

static ag_split_options astype_options(void) {
  ag_split_options o = {.in_dtype = AG_U16, .in_ndim = 3, .out_dtype = AG_F32, .out_ndim = 3};
  memcpy(o.in_shape, item_shape, sizeof item_shape);
  memcpy(o.out_shape, item_shape, sizeof item_shape);
  return o;
}

static uint16_t *astype_input(size_t n) {
  uint16_t *in = malloc(n * ITEM * sizeof *in);
  ck_assert_ptr_nonnull(in);
  for (size_t k = 0; k < n * ITEM; k++)
    in[k] = (uint16_t)((k * 2654435761u) >> 16);
  return in;
}

/* out = f32(in) + first: a chunk placed anywhere but at its items shows in every value. */
static ag_status astype_work(const ag_split_chunk *c, record *r) {
  (void)r;
  ag_status st = ag_astype(c->queue, c->in, c->out);
  if (st == AG_OK)
    st = ag_add_scalar(c->queue, c->out, (double)c->first, c->out);
  return st;
}

/* The same on the host, for chunks of @p chunk (not 0). Exact in f32: integers below
   65535 + n, under 2^24. */
static void astype_expected(size_t n, size_t chunk, float *want) {
  uint16_t *in = astype_input(n);
  for (size_t k = 0; k < n * ITEM; k++)
    want[k] = (float)in[k] + (float)(k / ITEM / chunk * chunk);
  free(in);
}

/* Runs the astype batch through @p r (its n items, its chunk size) over @p set into @p out (NULL:
   no output), and checks that the input, which the split borrows, is left as it was. */
static ag_status split_astype(record *r, const ag_device_set *set, float *out, bool with_state, size_t *device_items) {
  uint16_t *in = astype_input(r->n), *kept = astype_input(r->n);
  ag_split_options opt = astype_options();
  opt.chunk = r->given_chunk;
  ag_status st = run_split(r, set, in, out, &opt, with_state, device_items);
  CHECK_BYTES(in, kept, r->n * ITEM * sizeof *in, "the input, which the split only borrows");
  free(in), free(kept);
  return st;
}

/* The astype batch of @p n items over @p set in chunks of @p chunk into @p out, and its
   bookkeeping checked; the caller compares @p out. */
static void run_astype(const ag_device_set *set, size_t n, size_t chunk, float *out, size_t *device_items) {
  record r;
  record_init(&r, set, n, chunk);
  r.work = astype_work;
  CHECK_OK(split_astype(&r, set, out, false, device_items));
  check_complete(&r, false, device_items);
  record_free(&r);
}

/* ---- arguments ----------------------------------------------------------------------------- */

START_TEST(bad_arguments_are_refused_naming_them) {
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select("host", &set));
  record r;
  record_init(&r, set, 5, 0);
  uint16_t in[5 * ITEM] = {0};
  float out[5 * ITEM];
  ag_split_options good = astype_options();
  good.run = run_cb, good.setup = setup_cb, good.teardown = teardown_cb, good.user = &r;
  ag_split_options o = good;
  check_refused(NULL, 5, in, out, &o, AG_ERR_INVALID_ARGUMENT, "set");
  check_refused(set, 5, in, out, NULL, AG_ERR_INVALID_ARGUMENT, "opt");
  o.run = NULL;
  check_refused(set, 5, in, out, &o, AG_ERR_INVALID_ARGUMENT, "run");
  o = good, o.in_dtype = (ag_dtype)AG_DTYPE_COUNT;
  check_refused(set, 5, in, out, &o, AG_ERR_INVALID_ARGUMENT, "in_dtype");
  o = good, o.out_dtype = (ag_dtype)-1;
  check_refused(set, 5, in, out, &o, AG_ERR_INVALID_ARGUMENT, "out_dtype");
  static const int bad_ndims[] = {-1, AG_MAX_DIMS, 1000};
  for (size_t k = 0; k < sizeof bad_ndims / sizeof bad_ndims[0]; k++) {
    o = good, o.in_ndim = bad_ndims[k];
    check_refused(set, 5, in, out, &o, AG_ERR_INVALID_ARGUMENT, "in_ndim");
    o = good, o.out_ndim = bad_ndims[k];
    check_refused(set, 5, in, out, &o, AG_ERR_INVALID_ARGUMENT, "out_ndim");
  }
  o = good, o.in_shape[1] = 0;
  check_refused(set, 5, in, out, &o, AG_ERR_INVALID_ARGUMENT, "in_shape");
  o = good, o.out_shape[2] = 0;
  check_refused(set, 5, in, out, &o, AG_ERR_INVALID_ARGUMENT, "out_shape");
  /* n items of 8 MiB each, n one more than size_t's bytes hold. The buffers are never read. */
  o = good, o.in_dtype = o.out_dtype = AG_F64, o.in_ndim = o.out_ndim = 1;
  o.in_shape[0] = o.out_shape[0] = (size_t)1 << 20;
  size_t huge = SIZE_MAX / ((size_t)8 << 20) + 1;
  check_refused(set, huge, in, NULL, &o, AG_ERR_OUT_OF_RANGE, "n");
  check_refused(set, huge, NULL, out, &o, AG_ERR_OUT_OF_RANGE, "n");
  check_calls(&r, 0, 0, 0, 0, "refused calls");
  ck_assert_msg(r.problem[0] == '\0', "%s", r.problem);
  record_free(&r);
  ag_device_set_free(set);
}
END_TEST

/* Without output, as without input, the item's description is not read (split.h): the batch
   runs whatever out_dtype, out_ndim and out_shape say. */
START_TEST(without_output_the_output_item_is_not_checked) {
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select("host", &set));
  uint16_t in[3 * ITEM] = {0};
  ag_split_options good = astype_options();
  for (int k = 0; k < 3; k++) {
    ag_split_options o = good;
    if (k == 0)
      o.out_dtype = (ag_dtype)99;
    else if (k == 1)
      o.out_ndim = AG_MAX_DIMS;
    else
      o.out_shape[0] = 0;
    record r;
    record_init(&r, set, 3, 0);
    size_t items = 0;
    CHECK_OK(run_split(&r, set, in, NULL, &o, true, &items));
    check_complete(&r, true, &items);
    record_free(&r);
  }
  ag_device_set_free(set);
}
END_TEST

START_TEST(an_empty_batch_succeeds_calling_nothing) {
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select("host", &set));
  record r;
  record_init(&r, set, 0, 0);
  uint16_t in[ITEM] = {0};
  float out[ITEM] = {0};
  size_t items[1] = {0};
  ag_split_options opt = astype_options();
  CHECK_OK(run_split(&r, set, in, out, &opt, true, items));
  CHECK_OK(run_split(&r, set, NULL, NULL, &opt, true, NULL));
  check_calls(&r, 0, 0, 0, 0, "n = 0");
  record_free(&r);
  ag_device_set_free(set);
}
END_TEST

/* ---- azimuthal integration: a 64 x 64 detector --------------------------------------------- */

enum { SIDE = 64, NPIX = SIDE * SIDE, NFRAMES = 20 };

/* The beam off the middle with a small tilt, so that bins hold pixels of unequal shares. */
static const ag_poni poni = {.dist = 0.1, .poni1 = 0.0031, .poni2 = 0.0027, .rot1 = 0.02, .rot2 = -0.01,
                             .wavelength = 1e-10, .pixel1 = 1e-4, .pixel2 = 1e-4, .rows = SIDE, .cols = SIDE,
                             .detector = "Detector"};

/* @p n frames of u16 or f32 (a quarter added, so that f32 frames are not integers), each
   different. */
static void *make_frames(ag_dtype t, size_t n) {
  void *f = malloc(n * NPIX * ag_dtype_size(t));
  ck_assert_ptr_nonnull(f);
  for (size_t k = 0; k < n * NPIX; k++) {
    size_t fr = k / NPIX, i = k % NPIX / SIDE, j = k % SIDE;
    double v = 100 + 60 * sin(0.37 * (double)i) * cos(0.23 * (double)j) + (double)((i * 7 + j * 3 + fr * 5) % 11) +
               4 * (double)fr;
    if (t == AG_U16)
      ((uint16_t *)f)[k] = (uint16_t)v;
    else
      ((float *)f)[k] = (float)v + 0.25f;
  }
  return f;
}

static size_t bins_of(const ag_integrate_options *opt) {
  return opt->npt_rad * (opt->npt_azim > 0 ? opt->npt_azim : 1);
}

/* The intensities ag_integrate gives for the whole stack at once on @p dev. */
static void *integrate_whole(ag_device *dev, const ag_integrate_options *opt, const void *frames, ag_dtype t,
                             size_t n) {
  ag_integrator *integ = NULL;
  CHECK_OK(ag_integrator_create(dev, &poni, opt, &integ));
  size_t shape[3] = {n, SIDE, SIDE};
  ag_array *stack = NULL;
  CHECK_OK(ag_array_from_host(dev, t, 3, shape, frames, &stack));
  ag_integrate_result res;
  CHECK_OK(ag_integrate(NULL, integ, stack, &res));
  size_t bytes = n * bins_of(opt) * ag_dtype_size(opt->dtype);
  void *want = malloc(bytes);
  ck_assert_ptr_nonnull(want);
  CHECK_OK(ag_array_to_host(res.intensity, want, bytes));
  ag_integrate_result_free(&res);
  ag_array_free(stack);
  ag_integrator_destroy(integ);
  return want;
}

/* ag_integrate_split of @p n frames over @p set in chunks of @p chunk must give @p want's
   bytes, and count every frame in device_frames. */
static void check_integrate_split(const ag_device_set *set, const ag_integrate_options *opt, const void *frames,
                                  ag_dtype t, size_t n, size_t chunk, const void *want) {
  size_t bytes = n * bins_of(opt) * ag_dtype_size(opt->dtype);
  void *got = malloc(bytes);
  ck_assert_ptr_nonnull(got);
  memset(got, 0xa5, bytes);
  size_t frames_per_device[MAX_SET];
  int count = 0;
  CHECK_OK(ag_device_set_count(set, &count));
  for (int d = 0; d < count; d++)
    frames_per_device[d] = SIZE_MAX;
  CHECK_OK(ag_integrate_split(set, &poni, opt, frames, t, n, chunk, got, frames_per_device));
  char what[160];
  snprintf(what, sizeof what, "%s frames, %s engine, %zu x %zu bins, chunks of %zu: the intensities", ag_dtype_name(t),
           ag_dtype_name(opt->dtype), opt->npt_azim, opt->npt_rad, chunk);
  CHECK_BYTES(got, want, bytes, what);
  size_t sum = 0;
  for (int d = 0; d < count; d++)
    sum += frames_per_device[d];
  ck_assert_msg(sum == n, "%s: %s: device_frames sum to %zu, expected %zu", test_label(), what, sum, n);
  free(got);
}

/* 1-D with a mask, and 2-D with polarisation. */
static void integrate_cases(ag_integrate_options cases[2]) {
  static uint8_t mask[NPIX];
  for (int k = 0; k < NPIX; k++)
    mask[k] = k % 13 == 0;
  cases[0] = (ag_integrate_options){.npt_rad = 40, .unit = AG_RADIAL_2TH_DEG, .mask = mask};
  cases[1] = (ag_integrate_options){.npt_rad = 24, .npt_azim = 12, .unit = AG_RADIAL_Q_NM, .has_polarization = true,
                                    .polarization_factor = 0.9};
}

START_TEST(integrate_split_arguments_are_checked) {
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select("host", &set));
  ag_integrate_options opt = {.npt_rad = 10};
  float frames[2 * NPIX] = {0}, out[2 * 10];
  size_t per[1];
  CHECK_FAILS(ag_integrate_split(NULL, &poni, &opt, frames, AG_F32, 2, 0, out, per), AG_ERR_INVALID_ARGUMENT,
              "ag_integrate_split", "set");
  CHECK_FAILS(ag_integrate_split(set, NULL, &opt, frames, AG_F32, 2, 0, out, per), AG_ERR_INVALID_ARGUMENT,
              "ag_integrate_split", "poni");
  CHECK_FAILS(ag_integrate_split(set, &poni, NULL, frames, AG_F32, 2, 0, out, per), AG_ERR_INVALID_ARGUMENT,
              "ag_integrate_split", "opt");
  CHECK_FAILS(ag_integrate_split(set, &poni, &opt, NULL, AG_F32, 2, 0, out, per), AG_ERR_INVALID_ARGUMENT,
              "ag_integrate_split", "frames");
  CHECK_FAILS(ag_integrate_split(set, &poni, &opt, frames, AG_F32, 2, 0, NULL, per), AG_ERR_INVALID_ARGUMENT,
              "ag_integrate_split", "intensity");
  CHECK_FAILS(ag_integrate_split(set, &poni, &opt, frames, AG_C64, 1, 0, out, per), AG_ERR_INVALID_ARGUMENT,
              "ag_integrate_split", "frames_dtype");
  CHECK_FAILS(ag_integrate_split(set, &poni, &opt, frames, AG_C128, 1, 0, out, per), AG_ERR_INVALID_ARGUMENT,
              "ag_integrate_split", "frames_dtype");
  CHECK_FAILS(ag_integrate_split(set, &poni, &opt, frames, (ag_dtype)42, 1, 0, out, per), AG_ERR_INVALID_ARGUMENT,
              "ag_integrate_split", "frames_dtype");
  /* What ag_integrator_create refuses comes back from it. */
  opt.npt_rad = 0;
  ag_status st = ag_integrate_split(set, &poni, &opt, frames, AG_F32, 2, 0, out, per);
  ck_assert_msg(st == AG_ERR_INVALID_ARGUMENT && strstr(ag_last_error(), "npt_rad") != NULL,
                "npt_rad 0 returned %s: \"%s\", expected AG_ERR_INVALID_ARGUMENT naming npt_rad", ag_status_name(st),
                ag_last_error());
  ag_device_set_free(set);
}
END_TEST

/* ---- each device, in a set of its own ---------------------------------------------------- */

/* Chunks of every kind: the default (16: two full and a partial), one item, sizes that do and
   do not divide n, n itself and more. The results are integers below 2^24 in f32, exact on
   every device, so they are compared for equality. */
START_TEST(chunks_of_every_size_give_the_hosts_results) {
  ag_device *dev = NULL;
  ag_device_set *set = one_device_set(_i, &dev);
  enum { N = 45 };
  static const size_t chunks[] = {0, 1, 4, 7, 9, N, N + 19};
  float *out = malloc(N * ITEM * sizeof *out), *want = malloc(N * ITEM * sizeof *want);
  for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
    memset(out, 0xa5, N * ITEM * sizeof *out);
    size_t items = SIZE_MAX;
    run_astype(set, N, chunks[c], out, &items);
    astype_expected(N, chunks[c] == 0 ? DEFAULT_CHUNK : chunks[c], want);
    char what[80];
    snprintf(what, sizeof what, "chunks of %zu: the results", chunks[c]);
    CHECK_BYTES(out, want, N * ITEM * sizeof *out, what);
  }
  free(out), free(want);
  ag_device_set_free(set);
}
END_TEST

/* Without input, run() makes each item's result from its index: 3 i + 1 per item, 0-D items
   (chunks [count]). */
static ag_status index_work(const ag_split_chunk *c, record *r) {
  (void)r;
  ag_status st = AG_OK;
  for (size_t k = 0; k < c->count && st == AG_OK; k++) {
    ag_array *item = NULL;
    st = ag_array_index(c->out, k, &item);
    if (st == AG_OK)
      st = ag_fill(c->queue, item, 3.0 * (double)(c->first + k) + 1);
    ag_array_free(item);
  }
  return st;
}

/* Runs index_work over @p set, 23 items in chunks of @p chunk, with @p opt's input item, and
   checks the results. */
static void check_index_batch(const ag_device_set *set, size_t chunk, ag_split_options opt) {
  enum { N = 23 };
  record r;
  record_init(&r, set, N, chunk);
  r.work = index_work;
  opt.out_dtype = AG_I32, opt.out_ndim = 0, opt.chunk = chunk;
  int32_t out[N], want[N];
  memset(out, 0xa5, sizeof out);
  for (int i = 0; i < N; i++)
    want[i] = 3 * i + 1;
  size_t items[MAX_SET];
  CHECK_OK(run_split(&r, set, NULL, out, &opt, true, items));
  check_complete(&r, true, items);
  char what[80];
  snprintf(what, sizeof what, "chunks of %zu: the items' indices", chunk);
  CHECK_BYTES(out, want, sizeof out, what);
  record_free(&r);
}

START_TEST(a_batch_without_input_fills_from_the_items_index) {
  ag_device *dev = NULL;
  ag_device_set *set = one_device_set(_i, &dev);
  check_index_batch(set, 0, (ag_split_options){0});
  check_index_batch(set, 5, (ag_split_options){0});
  ag_device_set_free(set);
}
END_TEST

/* Without input, in_dtype and in_shape are not used: values that would be refused are not. */
START_TEST(without_input_the_input_item_is_not_checked) {
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select("host", &set));
  ag_split_options opt = {.in_dtype = (ag_dtype)99, .in_ndim = 2, .in_shape = {0, 3}};
  check_index_batch(set, 4, opt);
  ag_device_set_free(set);
}
END_TEST

/* Without output, chunk->out is NULL; setup()'s state counts the items, teardown() adds them up. */
START_TEST(a_batch_without_output_is_counted_through_the_devices_state) {
  ag_device *dev = NULL;
  ag_device_set *set = one_device_set(_i, &dev);
  record r;
  record_init(&r, set, 50, 8);
  size_t items = 0;
  CHECK_OK(split_astype(&r, set, NULL, true, &items));
  check_complete(&r, true, &items);
  record_free(&r);
  ag_device_set_free(set);
}
END_TEST

/* The status and message of a failed callback come back as the contract says: "ag_split_run:
   device I (SPEC), items [A, B): " and then the callback's own message. */
static void check_failure_message(const record *r, ag_status st, int device, const char *items) {
  ck_assert_msg(st == AG_ERR_INVALID_ARGUMENT, "%s: the split returned %s, expected the callback's "
                "AG_ERR_INVALID_ARGUMENT (last error: \"%s\")", test_label(), ag_status_name(st), ag_last_error());
  ck_assert_msg(r->failed, "%s: the failing callback was never called", test_label());
  char prefix[64], tail[1200];
  snprintf(prefix, sizeof prefix, "ag_split_run: device %d (", device);
  snprintf(tail, sizeof tail, "%s%s", items, r->callback_message);
  const char *msg = ag_last_error();
  size_t len = strlen(msg), tlen = strlen(tail);
  ck_assert_msg(strncmp(msg, prefix, strlen(prefix)) == 0, "%s: the message \"%s\" should start with \"%s\"",
                test_label(), msg, prefix);
  ck_assert_msg(strstr(msg, "), ") != NULL && len >= tlen && strcmp(msg + len - tlen, tail) == 0,
                "%s: the message \"%s\" should end with \"%s\"", test_label(), msg, tail);
}

START_TEST(a_failing_chunk_stops_the_split_and_tears_down) {
  ag_device *dev = NULL;
  ag_device_set *set = one_device_set(_i, &dev);
  enum { N = 40 };
  record r;
  record_init(&r, set, N, 4);
  r.work = astype_work;
  r.fail_device = 0;
  r.fail_first = 12;
  float *out = malloc(N * ITEM * sizeof *out);
  ag_status st = split_astype(&r, set, out, true, NULL);
  check_failure_message(&r, st, 0, "items [12, 16): ");
  ck_assert_msg(r.problem[0] == '\0', "%s: %s", test_label(), r.problem);
  ck_assert_msg(r.runs_after_failure == 0, "%s: run() was called %d times after a chunk failed",
                test_label(), r.runs_after_failure);
  check_calls(&r, 0, 1, -1, 1, "a failed run()");
  record_free(&r);
  free(out);
  ag_device_set_free(set);
}
END_TEST

START_TEST(a_failing_setup_runs_nothing_on_its_device) {
  ag_device *dev = NULL;
  ag_device_set *set = one_device_set(_i, &dev);
  record r;
  record_init(&r, set, 10, 0);
  r.fail_device = 0;
  r.fail_setup = true;
  ag_status st = split_astype(&r, set, NULL, true, NULL);
  ck_assert_msg(st == AG_ERR_INVALID_ARGUMENT, "%s: returned %s, expected setup()'s AG_ERR_INVALID_ARGUMENT (\"%s\")",
                test_label(), ag_status_name(st), ag_last_error());
  char prefix[64];
  snprintf(prefix, sizeof prefix, "ag_split_run: device 0 (");
  ck_assert_msg(strncmp(ag_last_error(), prefix, strlen(prefix)) == 0,
                "%s: the message \"%s\" should start with \"%s\"", test_label(), ag_last_error(), prefix);
  ck_assert_msg(r.failed, "%s: the failing setup() was never called", test_label());
  CHECK_MESSAGE_HAS(r.callback_message);
  check_calls(&r, 0, 1, 0, 0, "a failed setup()");
  ck_assert_msg(r.problem[0] == '\0', "%s: %s", test_label(), r.problem);
  record_free(&r);
  ag_device_set_free(set);
}
END_TEST

/* ag_integrate_split in a set of one device gives ag_integrate's bytes on that device: 1-D and
   2-D, u16 and f32 frames, the f32 engine and, where the device has double precision, f64. */
START_TEST(integrate_split_gives_ag_integrates_results) {
  ag_device *dev = NULL;
  ag_device_set *set = one_device_set(_i, &dev);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (!info.fp64)
    printf("%s: no double precision: the f64 engine is not compared here\n", test_label());
  ag_integrate_options cases[2];
  integrate_cases(cases);
  static const ag_dtype frame_types[] = {AG_U16, AG_F32}, engines[] = {AG_F32, AG_F64};
  static const size_t chunks[] = {0, 3, NFRAMES + 5};
  for (int c = 0; c < 2; c++)
    for (int f = 0; f < 2; f++)
      for (int e = 0; e < (info.fp64 ? 2 : 1); e++) {
        ag_integrate_options opt = cases[c];
        opt.dtype = engines[e];
        void *frames = make_frames(frame_types[f], NFRAMES);
        void *want = integrate_whole(dev, &opt, frames, frame_types[f], NFRAMES);
        for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++)
          check_integrate_split(set, &opt, frames, frame_types[f], NFRAMES, chunks[k], want);
        free(want);
        free(frames);
      }
  ag_device_set_free(set);
}
END_TEST

/* ---- two pocl devices -------------------------------------------------------------------- */

static ag_device_set *select_set(const char *spec) {
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select(spec, &set));
  return set;
}

START_TEST(two_devices_give_one_devices_results) {
  ag_device_set *both = select_set("opencl:pocl:*"), *one = select_set("opencl:pocl:0");
  enum { N = 45 };
  float *a = malloc(N * ITEM * sizeof *a), *b = malloc(N * ITEM * sizeof *b);
  size_t items[2];
  run_astype(both, N, 2, a, items);
  run_astype(one, N, 2, b, items);
  CHECK_BYTES(a, b, N * ITEM * sizeof *a, "ag_split_run's results on two devices and on one");
  free(a), free(b);

  ag_device *pocl0 = NULL;
  CHECK_OK(ag_device_set_get(one, 0, &pocl0));
  ag_integrate_options cases[2];
  integrate_cases(cases);
  for (int c = 0; c < 2; c++) {
    ag_integrate_options opt = cases[c];
    opt.dtype = c == 0 ? AG_F64 : AG_F32;
    void *frames = make_frames(c == 0 ? AG_F32 : AG_U16, NFRAMES);
    void *want = integrate_whole(pocl0, &opt, frames, c == 0 ? AG_F32 : AG_U16, NFRAMES);
    check_integrate_split(both, &opt, frames, c == 0 ? AG_F32 : AG_U16, NFRAMES, 3, want);
    check_integrate_split(one, &opt, frames, c == 0 ? AG_F32 : AG_U16, NFRAMES, 3, want);
    free(want);
    free(frames);
  }
  ag_device_set_free(both);
  ag_device_set_free(one);
}
END_TEST

/* On each device's first chunk, waits until every device of the set has entered run(): only
   devices that took work at the same time get past it. Gives up after 10 s. */
static ag_status rendezvous(const ag_split_chunk *c, record *r) {
  pthread_mutex_lock(&r->lock);
  bool waiting = r->runs[c->device] == 1, timed_out = false;
  r->entered[c->device] = true;
  pthread_cond_broadcast(&r->changed);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  while (waiting && !timed_out) {
    waiting = false;
    for (int d = 0; d < r->ndev; d++)
      waiting = waiting || !r->entered[d];
    if (waiting && pthread_cond_timedwait(&r->changed, &r->lock, &until) == ETIMEDOUT) {
      note(r, "device %d waited 10 s in its first chunk for the other device to enter run()", c->device);
      timed_out = true;
    }
  }
  pthread_mutex_unlock(&r->lock);
  return timed_out ? AG_ERR_DEVICE : AG_OK;
}

static ag_status rendezvous_then_astype(const ag_split_chunk *c, record *r) {
  ag_status st = rendezvous(c, r);
  return st == AG_OK ? astype_work(c, r) : st;
}

START_TEST(both_devices_run_at_once) {
  ag_device_set *set = select_set("opencl:pocl:*");
  enum { N = 64 };
  record r;
  record_init(&r, set, N, 4);
  ck_assert_int_eq(r.ndev, 2);
  r.work = rendezvous_then_astype;
  float *out = malloc(N * ITEM * sizeof *out), *want = malloc(N * ITEM * sizeof *want);
  size_t items[2] = {0, 0};
  ag_status st = split_astype(&r, set, out, true, items);
  ck_assert_msg(r.problem[0] == '\0', "%s", r.problem);
  CHECK_OK(st);
  check_complete(&r, true, items);
  ck_assert_msg(items[0] > 0 && items[1] > 0, "device_items are %zu and %zu, expected both above 0", items[0], items[1]);
  printf("%s: the devices ran %zu and %zu items\n", test_label(), items[0], items[1]);
  astype_expected(N, 4, want);
  CHECK_BYTES(out, want, N * ITEM * sizeof *out, "the results over two devices");
  record_free(&r);
  free(out), free(want);
  ag_device_set_free(set);
}
END_TEST

/* Device 1 fails at its second chunk, right after both have entered run(); device 0's chunks
   after its first take 2 ms each, so a split that went on would run all 100. */
static ag_status rendezvous_then_slow(const ag_split_chunk *c, record *r) {
  ag_status st = rendezvous(c, r);
  if (st == AG_OK && c->device == 0) {
    struct timespec ms2 = {0, 2000000};
    nanosleep(&ms2, NULL);
  }
  return st;
}

START_TEST(a_failure_on_one_device_stops_both) {
  ag_device_set *set = select_set("opencl:pocl:*");
  enum { N = 100 };
  record r;
  record_init(&r, set, N, 1);
  ck_assert_int_eq(r.ndev, 2);
  r.work = rendezvous_then_slow;
  r.fail_device = 1;
  r.fail_run = 2;
  ag_status st = split_astype(&r, set, NULL, true, NULL);
  ck_assert_msg(r.problem[0] == '\0', "%s", r.problem);
  char items[64];
  snprintf(items, sizeof items, "items [%zu, %zu): ", r.failed_first, r.failed_first + 1);
  check_failure_message(&r, st, 1, items);
  int started = r.runs[0] + r.runs[1];
  printf("%s: %d of %d chunks started, %d of them after the failure\n", test_label(), started, N,
         r.runs_after_failure);
  ck_assert_msg(started < N, "all %d chunks ran although device 1 failed at its second", N);
  for (int d = 0; d < 2; d++)
    check_calls(&r, d, 1, -1, 1, "device 1's failed run()");
  record_free(&r);
  ag_device_set_free(set);
}
END_TEST

/* setup() fails on device 1: nothing runs there and its teardown() is not called, device 0's
   is, and the message names device 1. */
START_TEST(a_failing_setup_on_one_device_tears_down_the_other) {
  ag_device_set *set = select_set("opencl:pocl:*");
  record r;
  record_init(&r, set, 40, 2);
  ck_assert_int_eq(r.ndev, 2);
  r.fail_device = 1;
  r.fail_setup = true;
  ag_status st = split_astype(&r, set, NULL, true, NULL);
  ck_assert_msg(st == AG_ERR_INVALID_ARGUMENT, "returned %s, expected setup()'s AG_ERR_INVALID_ARGUMENT (\"%s\")",
                ag_status_name(st), ag_last_error());
  ck_assert_msg(strncmp(ag_last_error(), "ag_split_run: device 1 (", 24) == 0,
                "the message \"%s\" should start with \"ag_split_run: device 1 (\"", ag_last_error());
  CHECK_MESSAGE_HAS(r.callback_message);
  ck_assert_msg(r.problem[0] == '\0', "%s", r.problem);
  check_calls(&r, 0, 1, -1, 1, "device 1's failed setup()");
  check_calls(&r, 1, 1, 0, 0, "device 1's failed setup()");
  record_free(&r);
  ag_device_set_free(set);
}
END_TEST

/* ---- the suite ---------------------------------------------------------------------------- */

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "bad arguments are refused naming them", bad_arguments_are_refused_naming_them);
    add_core_test(s, "an empty batch succeeds calling nothing", an_empty_batch_succeeds_calling_nothing);
    add_core_test(s, "without input the input item is not checked", without_input_the_input_item_is_not_checked);
    add_core_test(s, "without output the output item is not checked", without_output_the_output_item_is_not_checked);
    add_core_test(s, "integrate_split arguments are checked", integrate_split_arguments_are_checked);
    return;
  }
  if (getenv("ANYGPU_TEST_MULTI") != NULL) {
    if (strcmp(backend, "opencl") != 0)
      return;
    test_require_devices("opencl:pocl:*", 2);
    add_core_test(s, "two devices give one device's results", two_devices_give_one_devices_results);
    add_core_test(s, "both devices run at once", both_devices_run_at_once);
    add_core_test(s, "a failure on one device stops both", a_failure_on_one_device_stops_both);
    add_core_test(s, "a failing setup on one device tears down the other",
                  a_failing_setup_on_one_device_tears_down_the_other);
    return;
  }
  add_device_test(s, "chunks of every size give the host's results", chunks_of_every_size_give_the_hosts_results);
  add_device_test(s, "a batch without input fills from the item's index",
                  a_batch_without_input_fills_from_the_items_index);
  add_device_test(s, "a batch without output is counted through the device's state",
                  a_batch_without_output_is_counted_through_the_devices_state);
  add_device_test(s, "a failing chunk stops the split and tears down", a_failing_chunk_stops_the_split_and_tears_down);
  add_device_test(s, "a failing setup runs nothing on its device", a_failing_setup_runs_nothing_on_its_device);
  add_device_test(s, "integrate_split gives ag_integrate's results", integrate_split_gives_ag_integrates_results);
}
