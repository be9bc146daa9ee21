/* kernels_shared/mpol.h - the mpol family: MPoL's losses with their gradients and the pieces of
   its forward model (src/learn/mpol.c; docs/learn.md). Expanded
   once per dtype (AG_TC, see variant.h): the likelihood's kernel and the Fourier cube's two
   helpers for c64 and c128, the rest for f32 and f64. All are AG_ITEMS kernels, an item per
   element; none uses atomics, so every result is the same from run to run.

   The loss kernels write, per element, the element's share of the unscaled loss into terms
   (their sum is L; src/learn/loss_out.c scales and stores it) and scale * dL/dx into grad, or
   add it with AG_MPOL_ACCUMULATE, in the same pass. flags says which of the two is wanted; an
   output not wanted is a placeholder of one element that is never touched.

   ag_mpol_nll_<c>:      MPoL's nll_gridded over the cells where mask != 0: terms =
                         w |d - v|^2 / (2 N), grad = scale w (v - d) / N (the gradient of a real
                         function of complex v as PyTorch gives it, dL/dRe + i dL/dIm), 0 where
                         mask is 0. N, the count of cells in the mask, is read from count.
   ag_mpol_sparsity_<r>: terms = |x|, grad = scale sign(x) (0 at 0, as torch.abs's).
   ag_mpol_entropy_<r>:  terms = x log(x / p) / zeta, grad = scale (log(x / p) + 1) / zeta.
   ag_mpol_tv_<r>:       MPoL's TV_image on [..][ny][nx]: the term at (y, x), y < ny - 1,
                         x < nx - 1, is sqrt(dx^2 + dy^2 + eps) with dx = c[y][x + 1] - c[y][x]
                         and dy = c[y + 1][x] - c[y][x]; terms is 0 elsewhere. A pixel's
                         gradient gathers the up to three terms it appears in: its own, that of
                         its left neighbour (as the x + 1 of dx) and that of its upper one (as
                         the y + 1 of dy).
   ag_mpol_tsv_<r>:      MPoL's TSV, the same with dx^2 + dy^2 as the term (eps unused).
   ag_mpol_shuffle_<r>:  MPoL's sky_cube_to_packed_cube (dir 0: out = fftshift(flip(x, last
                         axis)) over the last two axes) and packed_cube_to_sky_cube (dir 1:
                         out = flip(fftshift(x), last axis)); an item per element of out.
   ag_mpol_hann_<r>:     the 3 x 3 Hann kernel (0.25, 0.5, 0.25) x (0.25, 0.5, 0.25) over each
                         [ny][nx] plane, zero padded, same size (MPoL's HannConvCube's Conv2d).
   ag_mpol_widen_<c>:    out = s x + 0i from a real x: the real cube before its complex FFT.
   ag_mpol_re_<c>:       out = s Re(z) into a real out: the adjoint's last step. */

#define AG_MPOL_TERMS 1
#define AG_MPOL_GRAD 2
#define AG_MPOL_ACCUMULATE 4

#define AG_SHAPE_MPOL_NLL(A, V, B, T1, T2, T3)                                                      \
  A(const T1, vis) A(const T1, data) A(const T2, weight) A(const ag_u8, mask) A(const T2, count)     \
      V(T2, scale) V(ag_u64, flags) A(T2, terms) A(T1, grad)
#define AG_SHAPE_MPOL_SPARSITY(A, V, B, T1, T2, T3)                                                 \
  A(const T1, x) V(T1, scale) V(ag_u64, flags) A(T1, terms) A(T1, grad)
#define AG_SHAPE_MPOL_ENTROPY(A, V, B, T1, T2, T3)                                                  \
  A(const T1, x) A(const T1, prior) V(T1, inv_flux) V(T1, scale) V(ag_u64, flags) A(T1, terms) A(T1, grad)
#define AG_SHAPE_MPOL_TV(A, V, B, T1, T2, T3)                                                       \
  A(const T1, x) V(ag_u64, ny) V(ag_u64, nx) V(T1, eps) V(T1, scale) V(ag_u64, flags) A(T1, terms)   \
      A(T1, grad)
#define AG_SHAPE_MPOL_SHUFFLE(A, V, B, T1, T2, T3)                                                  \
  A(const T1, x) V(ag_u64, ny) V(ag_u64, nx) V(ag_u64, dir) A(T1, out)
#define AG_SHAPE_MPOL_HANN(A, V, B, T1, T2, T3) A(const T1, x) V(ag_u64, ny) V(ag_u64, nx) A(T1, out)
#define AG_SHAPE_MPOL_WIDEN(A, V, B, T1, T2, T3) A(const T2, x) V(T2, s) A(T1, out)
#define AG_SHAPE_MPOL_RE(A, V, B, T1, T2, T3) A(const T1, z) V(T2, s) A(T2, out)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

/* Writes an element's gradient g: stored, or added to what grad holds. */
#define AG_MPOL_PUT_GRAD(at, g)                                                                     \
  do {                                                                                              \
    if (flags & AG_MPOL_GRAD) {                                                                     \
      if (flags & AG_MPOL_ACCUMULATE)                                                               \
        grad[at] += (g);                                                                            \
      else                                                                                          \
        grad[at] = (g);                                                                             \
    }                                                                                               \
  } while (0)

#if AG_CPLX && (!AG_NEEDS_F64 || AG_HAVE_F64)

AG_ITEMS(AG_KN(ag_mpol_nll), AG_SHAPE_MPOL_NLL, AG_T, AG_R, , {
  AG_R t = 0, gx = 0, gy = 0;
  if (mask[i] != 0) {
    AG_R inv_n = (AG_R)1 / count[0], w = weight[i];
    AG_R rx = vis[i].x - data[i].x, ry = vis[i].y - data[i].y;
    t = w * (rx * rx + ry * ry) * ((AG_R)0.5 * inv_n);
    AG_R k = scale * w * inv_n;
    gx = k * rx, gy = k * ry;
  }
  if (flags & AG_MPOL_TERMS)
    terms[i] = t;
  if (flags & AG_MPOL_GRAD) {
    if (flags & AG_MPOL_ACCUMULATE)
      gx += grad[i].x, gy += grad[i].y;
    grad[i] = AG_MAKE(gx, gy);
  }
})

AG_ITEMS(AG_KN(ag_mpol_widen), AG_SHAPE_MPOL_WIDEN, AG_T, AG_R, , { out[i] = AG_MAKE(s * x[i], (AG_R)0); })

AG_ITEMS(AG_KN(ag_mpol_re), AG_SHAPE_MPOL_RE, AG_T, AG_R, , { out[i] = s * z[i].x; })

#endif

#if AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64)

#define AG_MP_SQRT AG_CAT2(AG_SQRT, AG_RSFX)
#define AG_MP_LOG AG_CAT2(AG_LOG, AG_RSFX)
#define AG_MP_ABS AG_CAT2(AG_FABS, AG_RSFX)

AG_ITEMS(AG_KN(ag_mpol_sparsity), AG_SHAPE_MPOL_SPARSITY, AG_T, , , {
  AG_T v = x[i];
  if (flags & AG_MPOL_TERMS)
    terms[i] = AG_MP_ABS(v);
  /* NaN keeps NaN, as torch.sgn does. */
  AG_T g = v > 0 ? scale : v < 0 ? -scale : v == 0 ? (AG_T)0 : v;
  AG_MPOL_PUT_GRAD(i, g);
})

AG_ITEMS(AG_KN(ag_mpol_entropy), AG_SHAPE_MPOL_ENTROPY, AG_T, , , {
  AG_T v = x[i], l = AG_MP_LOG(v / prior[i]);
  if (flags & AG_MPOL_TERMS)
    terms[i] = v * l * inv_flux;
  AG_MPOL_PUT_GRAD(i, scale * inv_flux * (l + (AG_T)1));
})

/* The forward differences at (y, x) of plane p (its first element at base); valid for
   y < ny - 1 and x < nx - 1 only. */
#define AG_MP_DIFFS(base, y, x, dx, dy)                                                             \
  AG_T dx = x_[(base) + (y) * nx + (x) + 1] - x_[(base) + (y) * nx + (x)];                          \
  AG_T dy = x_[(base) + ((y) + 1) * nx + (x)] - x_[(base) + (y) * nx + (x)]

AG_ITEMS(AG_KN(ag_mpol_tv), AG_SHAPE_MPOL_TV, AG_T, , , {
  AG_GLOBAL const AG_T *x_ = x;
  ag_u64 c = i % nx, r = (i / nx) % ny, base = i - r * nx - c;
  AG_T t = 0, g = 0;
  if (r + 1 < ny && c + 1 < nx) {
    AG_MP_DIFFS(base, r, c, dx, dy);
    AG_T s = AG_MP_SQRT(dx * dx + dy * dy + eps);
    t = s;
    g -= (dx + dy) / s;
  }
  if (c >= 1 && r + 1 < ny) { /* the left neighbour's term, where this pixel is x + 1 */
    AG_MP_DIFFS(base, r, c - 1, dx, dy);
    g += dx / AG_MP_SQRT(dx * dx + dy * dy + eps);
  }
  if (r >= 1 && c + 1 < nx) { /* the upper neighbour's term, where this pixel is y + 1 */
    AG_MP_DIFFS(base, r - 1, c, dx, dy);
    g += dy / AG_MP_SQRT(dx * dx + dy * dy + eps);
  }
  if (flags & AG_MPOL_TERMS)
    terms[i] = t;
  AG_MPOL_PUT_GRAD(i, scale * g);
})

AG_ITEMS(AG_KN(ag_mpol_tsv), AG_SHAPE_MPOL_TV, AG_T, , , {
  (void)eps;
  AG_GLOBAL const AG_T *x_ = x;
  ag_u64 c = i % nx, r = (i / nx) % ny, base = i - r * nx - c;
  AG_T t = 0, g = 0;
  if (r + 1 < ny && c + 1 < nx) {
    AG_MP_DIFFS(base, r, c, dx, dy);
    t = dx * dx + dy * dy;
    g -= 2 * (dx + dy);
  }
  if (c >= 1 && r + 1 < ny) /* (x[y][x] - x[y][x - 1])^2 of the left neighbour's term */
    g += 2 * (x_[i] - x_[i - 1]);
  if (r >= 1 && c + 1 < nx) /* (x[y][x] - x[y - 1][x])^2 of the upper neighbour's term */
    g += 2 * (x_[i] - x_[i - nx]);
  if (flags & AG_MPOL_TERMS)
    terms[i] = t;
  AG_MPOL_PUT_GRAD(i, scale * g);
})

/* numpy's fftshift of an axis of n moves element k to (k + n / 2) % n, so out[j] comes from
   x[(j + n - n / 2) % n]; a flip reads x[n - 1 - j]. */
AG_ITEMS(AG_KN(ag_mpol_shuffle), AG_SHAPE_MPOL_SHUFFLE, AG_T, , , {
  ag_u64 c = i % nx, r = (i / nx) % ny, base = i - r * nx - c;
  ag_u64 sr = (r + ny - ny / 2) % ny, sc;
  if (dir == 0) /* fftshift(flip(x)): the shift's source column, then the flip's */
    sc = nx - 1 - (c + nx - nx / 2) % nx;
  else /* flip(fftshift(x)): the flip's source column, then the shift's */
    sc = (nx - 1 - c + nx - nx / 2) % nx;
  out[i] = x[base + sr * nx + sc];
})

AG_ITEMS(AG_KN(ag_mpol_hann), AG_SHAPE_MPOL_HANN, AG_T, , , {
  ag_u64 c = i % nx, r = (i / nx) % ny, base = i - r * nx - c;
  AG_T acc = 0;
  for (int dr = -1; dr <= 1; dr++) {
    if ((dr < 0 && r == 0) || (dr > 0 && r + 1 >= ny))
      continue;
    AG_T wr = dr == 0 ? (AG_T)0.5 : (AG_T)0.25, row = 0;
    ag_u64 rr = base + (ag_u64)((ag_i64)r + dr) * nx;
    if (c >= 1)
      row += (AG_T)0.25 * x[rr + c - 1];
    row += (AG_T)0.5 * x[rr + c];
    if (c + 1 < nx)
      row += (AG_T)0.25 * x[rr + c + 1];
    acc += wr * row;
  }
  out[i] = acc;
})

#undef AG_MP_DIFFS
#undef AG_MP_SQRT
#undef AG_MP_LOG
#undef AG_MP_ABS
#endif
#undef AG_MPOL_PUT_GRAD
#include "variant_end.h"
#endif
