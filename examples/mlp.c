/* examples/mlp.c - Flux's basic multi-layer perceptron on any device: a 784 -> 256 (relu) -> 10
   classifier trained with Adam on the logit cross-entropy, its batches streamed from host
   memory while the device computes. The same in Flux:

       model = Chain(Dense(784 => 256, relu), Dense(256 => 10))
       loss(x, y) = logitcrossentropy(model(x), y)
       opt = Flux.setup(Adam(1e-3), model)
       for epoch in 1:5, (x, y) in CuIterator(DataLoader((xtrain, ytrain), batchsize=128, shuffle=true))
           grads = gradient(m -> loss(m(x), y), model); Flux.update!(opt, model, grads[1])
       end

   The data set is made here, in place of MNIST: 10 classes, each a Gaussian cloud around its
   own centre in 784 dimensions (8192 samples to train on, 1024 held out), seeded, so every run
   sees the same data. float32 throughout, so it runs on devices without double precision. Pick
   the device with ANYGPU_DEVICE (host, opencl:pocl, cuda:0, ...). Prints the mean training loss
   and the held-out accuracy after each epoch; exit status 0 when the last accuracy is 90% or
   more. docs/learn.md describes the operations. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <anygpu.h>

enum { FEATURES = 784, HIDDEN = 256, CLASSES = 10 };
enum { TRAIN = 8192, TEST = 1024, BATCH = 128, EPOCHS = 5 };

#define TRY(call)                                                                                \
  do {                                                                                           \
    if ((call) != AG_OK) {                                                                       \
      fprintf(stderr, "mlp: %s\n", ag_last_error());                                             \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

/* Seeded standard normal values (Box-Muller over a 64-bit LCG): the same on every run. */
static float randn(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  double u1 = ((double)(*s >> 11) + 1) * 0x1p-53;
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  double u2 = (double)(*s >> 11) * 0x1p-53;
  return (float)(sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

/* n samples: x [n][784] = centre[class] + N(0, 1) noise, y [n][10] one-hot, label [n]. The
   centres are N(0, 0.15^2) per feature, about 5.9 apart: neighbouring classes overlap a little
   (a few samples lie nearer another class's centre than their own). */
static void make_data(const float *centres, size_t n, uint64_t seed, float *x, float *y, int *label) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    int c = (int)(i % CLASSES);
    label[i] = c;
    for (int j = 0; j < CLASSES; j++)
      y[i * CLASSES + j] = j == c ? 1.0f : 0.0f;
    for (int f = 0; f < FEATURES; f++)
      x[i * FEATURES + f] = centres[c * FEATURES + f] + randn(&s);
  }
}

/* A layer's parameters, their gradients and their optimisers. */
typedef struct layer {
  ag_array *w, *b, *dw, *db;
  ag_optimizer *ow, *ob;
} layer;

static layer make_layer(ag_device *dev, size_t in, size_t out, uint64_t seed, const ag_optim_options *opt) {
  layer l;
  TRY(ag_array_create(dev, AG_F32, 2, (size_t[]){out, in}, &l.w));
  TRY(ag_array_create(dev, AG_F32, 1, (size_t[]){out}, &l.b));
  TRY(ag_array_create(dev, AG_F32, 2, (size_t[]){out, in}, &l.dw));
  TRY(ag_array_create(dev, AG_F32, 1, (size_t[]){out}, &l.db));
  /* Flux's Dense: glorot_uniform weights, zero bias */
  TRY(ag_glorot_uniform(NULL, l.w, seed));
  TRY(ag_fill(NULL, l.b, 0.0));
  TRY(ag_optimizer_create(opt, l.w, &l.ow));
  TRY(ag_optimizer_create(opt, l.b, &l.ob));
  return l;
}

static void free_layer(layer *l) {
  ag_optimizer_destroy(l->ow), ag_optimizer_destroy(l->ob);
  ag_array_free(l->w), ag_array_free(l->b), ag_array_free(l->dw), ag_array_free(l->db);
}

/* The first @p n rows of @p full (a [BATCH][k] work array), as a view the caller frees. */
static ag_array *rows(const ag_array *full, size_t n) {
  ag_array *v = NULL;
  TRY(ag_array_slice(full, 0, n, &v));
  return v;
}

/* The share of the held-out samples whose largest logit is their class. */
static double accuracy(ag_device *dev, const layer *l1, const layer *l2, const ag_array *x, const int *label) {
  ag_array *h = NULL, *logits = NULL;
  TRY(ag_array_create(dev, AG_F32, 2, (size_t[]){TEST, HIDDEN}, &h));
  TRY(ag_array_create(dev, AG_F32, 2, (size_t[]){TEST, CLASSES}, &logits));
  TRY(ag_dense_forward(NULL, x, l1->w, l1->b, AG_ACT_RELU, h));
  TRY(ag_dense_forward(NULL, h, l2->w, l2->b, AG_ACT_IDENTITY, logits));
  static float out[TEST * CLASSES];
  TRY(ag_array_to_host(logits, out, sizeof out));
  size_t right = 0;
  for (size_t i = 0; i < TEST; i++) {
    int best = 0;
    for (int j = 1; j < CLASSES; j++)
      if (out[i * CLASSES + j] > out[i * CLASSES + best])
        best = j;
    right += best == label[i];
  }
  ag_array_free(h), ag_array_free(logits);
  return (double)right / TEST;
}

int main(void) {
  ag_device *dev = NULL;
  TRY(ag_device_select(NULL, &dev));
  ag_device_info info;
  TRY(ag_device_get_info(dev, &info));
  printf("device: %s (%s)\n", info.spec, info.name);

  /* the data set, on the host */
  float *centres = malloc(sizeof(float) * CLASSES * FEATURES);
  float *xtrain = malloc(sizeof(float) * TRAIN * FEATURES), *ytrain = malloc(sizeof(float) * TRAIN * CLASSES);
  float *xtest = malloc(sizeof(float) * TEST * FEATURES), *ytest = malloc(sizeof(float) * TEST * CLASSES);
  int *ltrain = malloc(sizeof(int) * TRAIN), *ltest = malloc(sizeof(int) * TEST);
  if (!centres || !xtrain || !ytrain || !xtest || !ytest || !ltrain || !ltest) {
    fprintf(stderr, "mlp: out of host memory\n");
    return 1;
  }
  uint64_t s = 2024;
  for (size_t i = 0; i < (size_t)CLASSES * FEATURES; i++)
    centres[i] = 0.15f * randn(&s);
  make_data(centres, TRAIN, 1, xtrain, ytrain, ltrain);
  make_data(centres, TEST, 2, xtest, ytest, ltest);
  ag_array *x_test = NULL;
  TRY(ag_array_from_host(dev, AG_F32, 2, (size_t[]){TEST, FEATURES}, xtest, &x_test));

  /* the model and its optimisers: Adam as torch.optim.Adam, lr 1e-3 */
  ag_optim_options opt;
  TRY(ag_optim_options_default(AG_OPTIM_ADAM_TORCH, &opt));
  opt.lr = 1e-3;
  layer l1 = make_layer(dev, FEATURES, HIDDEN, 11, &opt), l2 = make_layer(dev, HIDDEN, CLASSES, 12, &opt);

  /* work arrays of a whole batch; a shorter batch uses their first rows */
  ag_array *h = NULL, *logits = NULL, *dlogits = NULL, *dh = NULL, *batch_loss = NULL, *epoch_loss = NULL;
  TRY(ag_array_create(dev, AG_F32, 2, (size_t[]){BATCH, HIDDEN}, &h));
  TRY(ag_array_create(dev, AG_F32, 2, (size_t[]){BATCH, HIDDEN}, &dh));
  TRY(ag_array_create(dev, AG_F32, 2, (size_t[]){BATCH, CLASSES}, &logits));
  TRY(ag_array_create(dev, AG_F32, 2, (size_t[]){BATCH, CLASSES}, &dlogits));
  TRY(ag_array_create(dev, AG_F32, 1, (size_t[]){1}, &batch_loss));
  TRY(ag_array_create(dev, AG_F32, 1, (size_t[]){1}, &epoch_loss));

  /* shuffled each epoch (seed 7), two batches in flight */
  ag_batch_stream *stream = NULL;
  TRY(ag_batch_stream_create(dev, xtrain, AG_F32, FEATURES, ytrain, AG_F32, CLASSES, TRAIN, BATCH, 7, &stream));
  double acc = 0;
  for (int epoch = 1; epoch <= EPOCHS; epoch++) {
    TRY(ag_fill(NULL, epoch_loss, 0.0));
    for (;;) {
      ag_array *x = NULL, *y = NULL;
      size_t n = 0;
      TRY(ag_batch_stream_next(stream, NULL, &x, &y, &n));
      if (n == 0)
        break;
      ag_array *hb = rows(h, n), *dhb = rows(dh, n), *lb = rows(logits, n), *dlb = rows(dlogits, n);
      /* forward */
      TRY(ag_dense_forward(NULL, x, l1.w, l1.b, AG_ACT_RELU, hb));
      TRY(ag_dense_forward(NULL, hb, l2.w, l2.b, AG_ACT_IDENTITY, lb));
      /* the batch's loss and its gradient in one pass; the epoch's mean loss adds each batch's
         at its share of the samples */
      TRY(ag_loss_logitcrossentropy(NULL, lb, y, 1.0, batch_loss, dlb, 0));
      TRY(ag_axpy(NULL, (double)n / TRAIN, batch_loss, epoch_loss));
      /* backward */
      TRY(ag_dense_backward(NULL, hb, l2.w, AG_ACT_IDENTITY, lb, dlb, dhb, l2.dw, l2.db));
      TRY(ag_dense_backward(NULL, x, l1.w, AG_ACT_RELU, hb, dhb, NULL, l1.dw, l1.db));
      /* update */
      TRY(ag_optimizer_step(NULL, l1.ow, l1.w, l1.dw));
      TRY(ag_optimizer_step(NULL, l1.ob, l1.b, l1.db));
      TRY(ag_optimizer_step(NULL, l2.ow, l2.w, l2.dw));
      TRY(ag_optimizer_step(NULL, l2.ob, l2.b, l2.db));
      ag_array_free(hb), ag_array_free(dhb), ag_array_free(lb), ag_array_free(dlb);
    }
    float loss = 0;
    TRY(ag_array_to_host(epoch_loss, &loss, sizeof loss));
    acc = accuracy(dev, &l1, &l2, x_test, ltest);
    printf("epoch %d: training loss %.4f, held-out accuracy %.2f%%\n", epoch, loss, 100 * acc);
  }

  ag_batch_stream_destroy(stream);
  free_layer(&l1), free_layer(&l2);
  ag_array *work[] = {h, dh, logits, dlogits, batch_loss, epoch_loss, x_test};
  for (size_t i = 0; i < sizeof work / sizeof work[0]; i++)
    ag_array_free(work[i]);
  free(centres), free(xtrain), free(ytrain), free(xtest), free(ytest), free(ltrain), free(ltest);
  if (acc < 0.9) {
    fprintf(stderr, "mlp: the held-out accuracy %.2f%% is below 90%%\n", 100 * acc);
    return 1;
  }
  return 0;
}
