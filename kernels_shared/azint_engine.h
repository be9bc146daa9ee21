/* kernels_shared/azint_engine.h - the azint family's kernels (kernels_shared/azint.h says what
   they compute) for one engine dtype: included by azint.h inside the variant of the frames'
   dtype (AG_T) with AG_AZ_ENGINE 4 (f32) or 5 (f64), once each, so it has no include guard
   and undoes its names at the end. */
#if AG_AZ_ENGINE == 4
#define AG_AZ_E ag_f32
#define AG_AZ_ESFX _f32
#else
#define AG_AZ_E ag_f64
#define AG_AZ_ESFX _f64
#endif

/* This expansion's names: AG_AZ(add) is ag_az_add_u16_f32, AG_AZ_KN(ag_azint_csr) is
   ag_azint_csr_u16_f32. */
#define AG_AZ(fn) AG_CAT3(ag_az_##fn, AG_SFX, AG_AZ_ESFX)
#define AG_AZ_KN(base) AG_CAT3(base, AG_SFX, AG_AZ_ESFX)

/* The sums' type: double where the device has it, else f32 with a compensation term. */
#if AG_HAVE_F64
#define AG_AZ_A ag_f64
#else
#define AG_AZ_A ag_f32
#endif

typedef struct AG_AZ(sum) {
  AG_AZ_A s, c;
} AG_AZ(sum);

/* A bin's four sums: signal, normalisation, count (the shares), variance. */
typedef struct AG_AZ(bin) {
  AG_AZ(sum) sig, nrm, cnt, var;
} AG_AZ(bin);

AG_INLINE AG_AZ(sum) AG_AZ(add)(AG_AZ(sum) a, AG_AZ_A v) {
#if AG_HAVE_F64
  a.s += v;
#else
  /* TwoSum: t = fl(s + v), e = (s + v) - t exactly; left out once t is not finite. */
  AG_AZ_A t = a.s + v;
  AG_AZ_A bv = t - a.s;
  AG_AZ_A e = (a.s - (t - bv)) + (v - bv);
  a.s = t;
  a.c += t - t == 0 ? e : (AG_AZ_A)0;
#endif
  return a;
}

AG_INLINE AG_AZ(sum) AG_AZ(merge)(AG_AZ(sum) a, AG_AZ(sum) b) {
  a = AG_AZ(add)(a, b.s);
  a.c += b.c;
  return a;
}

AG_INLINE AG_AZ(bin) AG_AZ(zero)(void) {
  AG_AZ(bin) a;
  a.sig.s = a.sig.c = a.nrm.s = a.nrm.c = a.cnt.s = a.cnt.c = a.var.s = a.var.c = 0;
  return a;
}

AG_INLINE AG_AZ(bin) AG_AZ(merge_bin)(AG_AZ(bin) a, AG_AZ(bin) b) {
  a.sig = AG_AZ(merge)(a.sig, b.sig);
  a.nrm = AG_AZ(merge)(a.nrm, b.nrm);
  a.cnt = AG_AZ(merge)(a.cnt, b.cnt);
  a.var = AG_AZ(merge)(a.var, b.var);
  return a;
}

/* x is finite: x - x is 0 for finite x and NaN for Inf and NaN, in every dialect. */
#define AG_AZ_FINITE(x) ((x) - (x) == 0)
/* x is NaN: the one value unequal to itself (nothing here is built with fast-math). */
#define AG_AZ_NAN(x) ((x) != (x))

/* Pixel p of frame f (its first pixel) with share w, added to bin a. */
AG_INLINE AG_AZ(bin) AG_AZ(pixel)(AG_AZ(bin) a, AG_AZ_E w, ag_u64 p, AG_GLOBAL const AG_T *f,
                                  AG_GLOBAL const AG_AZ_E *dark, AG_GLOBAL const AG_AZ_E *norm,
                                  AG_GLOBAL const AG_AZ_E *var, ag_u32 has_dark, ag_u32 has_dummy,
                                  AG_AZ_E dummy, AG_AZ_E ddummy, ag_u32 vmode) {
  AG_AZ_E raw = (AG_AZ_E)f[p];
  AG_AZ_E sig = raw - (has_dark ? dark[p] : (AG_AZ_E)0);
  AG_AZ_E nrm = norm[p];
  /* fmax, not raw > 1 ? raw : 1: rusticl 22.3 compiles that select, on a raw converted from
     u8 or u16, into one that gives 15360 (the bits of a half-precision 1) for 0 and 1. */
  AG_AZ_E v = vmode == 1 ? AG_CAT2(AG_FMAX, AG_AZ_ESFX)(raw, (AG_AZ_E)1)
              : vmode == 2 ? raw
              : vmode == 3 ? var[p]
                           : (AG_AZ_E)0;
  /* pyFAI 0.21.3's CSR engine (CsrIntegrator.integrate_ng) leaves out an entry whose share is
     0, and a pixel whose signal, variance or normalisation is NaN or whose normalisation is 0;
     it keeps +-inf pixels, whose bins then sum to +-inf (NaN where +inf meets -inf). Leaving
     out a share of 0 changes no finite sum: it would add +0. */
  bool bad = w == (AG_AZ_E)0 || AG_AZ_NAN(sig) || AG_AZ_NAN(nrm) || nrm == (AG_AZ_E)0 || AG_AZ_NAN(v);
  if (has_dummy) {
    AG_AZ_E off = raw - dummy;
    bad = bad || (ddummy == (AG_AZ_E)0 ? raw == dummy : (off < 0 ? -off : off) <= ddummy);
  }
  /* Selects rather than a branch: a left-out pixel adds zeros. */
  AG_AZ_A wa = bad ? (AG_AZ_A)0 : (AG_AZ_A)w;
  a.sig = AG_AZ(add)(a.sig, wa * (AG_AZ_A)(bad ? (AG_AZ_E)0 : sig));
  a.nrm = AG_AZ(add)(a.nrm, wa * (AG_AZ_A)(bad ? (AG_AZ_E)0 : nrm));
  a.cnt = AG_AZ(add)(a.cnt, wa);
  a.var = AG_AZ(add)(a.var, wa * wa * (AG_AZ_A)(bad ? (AG_AZ_E)0 : v));
  return a;
}

AG_INLINE AG_AZ_E AG_AZ(total)(AG_AZ(sum) a) { return (AG_AZ_E)(a.s + a.c); }

/* The math name stays out of the kernel macro's arguments (variant.h says why). */
AG_INLINE AG_AZ_E AG_AZ(sqrt)(AG_AZ_E x) { return AG_CAT2(AG_SQRT, AG_AZ_ESFX)(x); }

/* q = x / d and x % d, in 32 bits where both fit: a 64-bit division costs several times a
   32-bit one on CPUs and is a long instruction sequence on GPUs, and a 2-D integration makes
   two of them for each of its 360 000 bins. */
AG_INLINE ag_u64 AG_AZ(divmod)(ag_u64 x, ag_u64 d, ag_u64 *rem) {
  if (((x | d) >> 32) == 0) {
    ag_u32 x32 = (ag_u32)x, d32 = (ag_u32)d;
    *rem = x32 % d32;
    return x32 / d32;
  }
  *rem = x % d;
  return x / d;
}

/* Bin r of frame b's six results. */
AG_INLINE void AG_AZ(store)(AG_AZ(bin) a, ag_u64 r, ag_u64 b, ag_u64 nrad, ag_u64 nazim, AG_AZ_E empty,
                            AG_GLOBAL AG_AZ_E *intensity, AG_GLOBAL AG_AZ_E *sigma, AG_GLOBAL AG_AZ_E *sum_signal,
                            AG_GLOBAL AG_AZ_E *sum_variance, AG_GLOBAL AG_AZ_E *sum_norm,
                            AG_GLOBAL AG_AZ_E *count) {
  ag_u64 j, ir = AG_AZ(divmod)(r, nazim, &j);
  ag_u64 o = (b * nazim + j) * nrad + ir;
  AG_AZ_E s = AG_AZ(total)(a.sig), w = AG_AZ(total)(a.nrm), c = AG_AZ(total)(a.cnt), v = AG_AZ(total)(a.var);
  bool any = c > (AG_AZ_E)0;
  intensity[o] = any ? s / w : empty;
  sigma[o] = any ? AG_AZ(sqrt)(v) / w : empty;
  sum_signal[o] = s;
  sum_variance[o] = v;
  sum_norm[o] = w;
  count[o] = c;
}

/* Row r of the matrix over frame f: the four sums (prefetches run into the next rows' entries,
   up to kend, the matrix's last). Inlined where the last three arguments are
   constants, so the common corrections-free loop has no per-entry tests of them. */
AG_INLINE AG_AZ(bin) AG_AZ(row)(AG_GLOBAL const ag_u64 *row_ptr, AG_GLOBAL const ag_u32 *col_idx,
                                AG_GLOBAL const AG_AZ_E *val, ag_u64 r, ag_u64 kend, AG_GLOBAL const AG_T *f,
                                AG_GLOBAL const AG_AZ_E *dark, AG_GLOBAL const AG_AZ_E *norm,
                                AG_GLOBAL const AG_AZ_E *var, AG_AZ_E dummy, AG_AZ_E ddummy, ag_u32 has_dark,
                                ag_u32 has_dummy, ag_u32 vmode) {
  AG_AZ(bin) a = AG_AZ(zero)();
  for (ag_u64 k = row_ptr[r], k1 = row_ptr[r + 1]; k < k1; k++) {
    if (AG_AHEAD > 0 && k + AG_AHEAD < kend) {
      ag_u32 q = col_idx[k + AG_AHEAD];
      AG_PREFETCH(f + q);
      AG_PREFETCH(norm + q);
    }
    a = AG_AZ(pixel)(a, val[k], col_idx[k], f, dark, norm, var, has_dark, has_dummy, dummy, ddummy, vmode);
  }
  return a;
}

/* Row r over nf frames (at most AG_AZINT_FRAMES) from f, npix apart, where the row holds no
   pixel of a bad normalisation and there is no dark (the walk of a CPU device,
   kernels_shared/azint.h): each frame's signal and variance sums into a[t]; the normalisation
   is not read. bad[t] is set where a pixel of frame t is not finite (left out when NaN, or
   kept, but then not to be multiplied by a share of 0) or the dummy, and that frame's sums are
   then to be made again by AG_AZ(row). */
AG_INLINE void AG_AZ(quick)(AG_GLOBAL const ag_u64 *row_ptr, AG_GLOBAL const ag_u32 *col_idx,
                            AG_GLOBAL const AG_AZ_E *val, ag_u64 r, ag_u64 kend, AG_GLOBAL const AG_T *f,
                            ag_u64 npix, ag_u32 nf, AG_AZ_E dummy, AG_AZ_E ddummy, ag_u32 has_dummy, ag_u32 vmode,
                            AG_AZ(bin) *a, bool *bad) {
  /* Local sums, which the compiler keeps in registers once the loops over t are unrolled. */
  AG_AZ(sum) sig[AG_AZINT_FRAMES], vs[AG_AZINT_FRAMES];
  bool out[AG_AZINT_FRAMES];
  for (ag_u32 t = 0; t < nf; t++)
    sig[t] = vs[t] = AG_AZ(zero)().sig, out[t] = false;
  for (ag_u64 k = row_ptr[r], k1 = row_ptr[r + 1]; k < k1; k++) {
    ag_u32 p = col_idx[k];
    if (AG_AHEAD > 0 && k + AG_AHEAD < kend)
      for (ag_u32 t = 0; t < nf; t++)
        AG_PREFETCH(f + t * npix + col_idx[k + AG_AHEAD]);
    AG_AZ_A wa = (AG_AZ_A)val[k];
    for (ag_u32 t = 0; t < nf; t++) {
      AG_AZ_E raw = (AG_AZ_E)f[t * npix + p];
      AG_AZ_E v = vmode == 1 ? AG_CAT2(AG_FMAX, AG_AZ_ESFX)(raw, (AG_AZ_E)1) : vmode == 2 ? raw : (AG_AZ_E)0;
      out[t] = out[t] || !AG_AZ_FINITE(raw);
      if (has_dummy) {
        AG_AZ_E off = raw - dummy;
        out[t] = out[t] || (ddummy == (AG_AZ_E)0 ? raw == dummy : (off < 0 ? -off : off) <= ddummy);
      }
      sig[t] = AG_AZ(add)(sig[t], wa * (AG_AZ_A)raw);
      vs[t] = AG_AZ(add)(vs[t], wa * wa * (AG_AZ_A)v);
    }
  }
  for (ag_u32 t = 0; t < nf; t++) {
    a[t] = AG_AZ(zero)();
    a[t].sig = sig[t], a[t].var = vs[t], bad[t] = out[t];
  }
}

/* Row r's results for nf frames from frame b0 (f its first pixel): AG_AZ(quick) with the
   static sums where the kernel has them, else or for a frame it turns down, AG_AZ(row); each
   loop inlined with constants for the common cases. */
AG_INLINE void AG_AZ(rows_of)(AG_GLOBAL const ag_u64 *row_ptr, AG_GLOBAL const ag_u32 *col_idx,
                              AG_GLOBAL const AG_AZ_E *val, ag_u64 r, ag_u64 kend, AG_GLOBAL const AG_T *f,
                              ag_u64 npix, ag_u32 nf, ag_u32 nf_max, AG_GLOBAL const AG_AZ_E *dark,
                              AG_GLOBAL const AG_AZ_E *norm, AG_GLOBAL const AG_AZ_E *var, AG_AZ_E dummy,
                              AG_AZ_E ddummy, ag_u32 has_dark, ag_u32 has_dummy, ag_u32 vmode,
                              AG_GLOBAL const AG_AZ_E *sums, ag_u32 has_sums, AG_AZ(bin) *a) {
  bool bad[AG_AZINT_FRAMES];
  for (ag_u32 t = 0; t < nf; t++)
    bad[t] = true;
  if (has_sums) {
    bool plain = has_dummy == 0 && vmode == 0;
    if (plain && nf == nf_max)
      AG_AZ(quick)(row_ptr, col_idx, val, r, kend, f, npix, nf_max, dummy, ddummy, 0, 0, a, bad);
    else
      AG_AZ(quick)(row_ptr, col_idx, val, r, kend, f, npix, nf, dummy, ddummy, has_dummy, vmode, a, bad);
    for (ag_u32 t = 0; t < nf; t++) {
      a[t].nrm.s = (AG_AZ_A)sums[2 * r];
      a[t].cnt.s = (AG_AZ_A)sums[2 * r + 1];
    }
  }
  for (ag_u32 t = 0; t < nf; t++)
    if (bad[t])
      a[t] = has_dark == 0 && has_dummy == 0 && vmode == 0
                 ? AG_AZ(row)(row_ptr, col_idx, val, r, kend, f + t * npix, dark, norm, var, dummy, ddummy, 0, 0, 0)
                 : AG_AZ(row)(row_ptr, col_idx, val, r, kend, f + t * npix, dark, norm, var, dummy, ddummy,
                              has_dark, has_dummy, vmode);
}

AG_ITEMS(AG_AZ_KN(ag_azint_csr), AG_SHAPE_AZINT_CSR, AG_T, AG_AZ_E, , {
  ag_u64 r, b = AG_AZ(divmod)(i, nbins, &r);
  AG_AZ(bin) a[1];
  (void)n_frames; /* the _frames kernel's */
  AG_AZ(rows_of)(row_ptr, col_idx, val, r, row_ptr[nbins], frames + b * npix, npix, 1, 1, dark, norm, var, dummy,
                 ddummy, has_dark, has_dummy, vmode, sums, has_sums, a);
  AG_AZ(store)(a[0], has_order ? bin_of[r] : r, b, nrad, nazim, empty, intensity, sigma, sum_signal, sum_variance,
               sum_norm, count);
})

/* The same for CPU devices with AG_AZINT_FRAMES frames an item, which then read each entry of
   the row once for them all: item i takes row i % nbins of frames from (i / nbins) x
   AG_AZINT_FRAMES, fewer in the last group (n_frames in all). */
AG_ITEMS(AG_CAT2(AG_AZ_KN(ag_azint_csr), _frames), AG_SHAPE_AZINT_CSR, AG_T, AG_AZ_E, , {
  ag_u64 r, b0 = AG_AZ(divmod)(i, nbins, &r) * AG_AZINT_FRAMES;
  ag_u32 nf = n_frames - b0 < AG_AZINT_FRAMES ? (ag_u32)(n_frames - b0) : AG_AZINT_FRAMES;
  AG_AZ(bin) a[AG_AZINT_FRAMES];
  AG_AZ(rows_of)(row_ptr, col_idx, val, r, row_ptr[nbins], frames + b0 * npix, npix, nf, AG_AZINT_FRAMES, dark,
                 norm, var, dummy, ddummy, has_dark, has_dummy, vmode, sums, has_sums, a);
  for (ag_u32 t = 0; t < nf; t++)
    AG_AZ(store)(a[t], has_order ? bin_of[r] : r, b0 + t, nrad, nazim, empty, intensity, sigma, sum_signal,
                 sum_variance, sum_norm, count);
})

/* Work-group g takes row g % nbins of frame g / nbins: item l takes entries l, l + size, ...
   (neighbouring items read neighbouring entries), then the sums meet pairwise. */
AG_GROUPS(AG_CAT2(AG_AZ_KN(ag_azint_csr), _rows), AG_SHAPE_AZINT_CSR, AG_T, AG_AZ_E, ,
          AG_LOCAL_MEM AG_AZ(bin) sh[AG_AZINT_GROUP];, {
  ag_u32 l = AG_LOCAL_ID, size = AG_LOCAL_SIZE;
  ag_u64 r, b = AG_AZ(divmod)(g, nbins, &r);
  AG_GLOBAL const AG_T *f = frames + b * npix;
  AG_AZ(bin) a = AG_AZ(zero)();
  for (ag_u64 k = row_ptr[r] + l, k1 = row_ptr[r + 1]; k < k1; k += size)
    a = AG_AZ(pixel)(a, val[k], col_idx[k], f, dark, norm, var, has_dark, has_dummy, dummy, ddummy, vmode);
  sh[l] = a;
  AG_BARRIER();
  for (ag_u32 w = size / 2; w > 0; w >>= 1) {
    if (l < w)
      sh[l] = AG_AZ(merge_bin)(sh[l], sh[l + w]);
    AG_BARRIER();
  }
  if (l == 0)
    AG_AZ(store)(sh[0], has_order ? bin_of[r] : r, b, nrad, nazim, empty, intensity, sigma, sum_signal,
                 sum_variance, sum_norm, count);
})

#undef AG_AZ_FINITE
#undef AG_AZ_NAN
#undef AG_AZ_A
#undef AG_AZ_KN
#undef AG_AZ
#undef AG_AZ_ESFX
#undef AG_AZ_E
