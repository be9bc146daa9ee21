/* kernels_shared/azint.h - the azint family: one pass of azimuthal integration
   (include/anygpu/azint.h) over a batch of frames, reading the frames in their own dtype (the
   variant, AG_TC: any real dtype) and computing in the engine's (f32, or f64 where the device
   has double precision). kernels_shared/azint_engine.h holds the kernels, expanded here once
   per engine dtype:

   ag_azint_csr_<frames>_<engine>:      one item per (bin r, frame b), r fastest, i = b * nbins
                                        + r: walks row r of the integrator's matrix (the bins'
                                        shares of each pixel) over frame b and writes bin r's
                                        six results;
   ag_azint_csr_<frames>_<engine>_rows: the same with a work-group per (bin, frame), its items
                                        striding through the row and their sums meeting in a
                                        tree in local memory (GPUs, for long rows);
   ag_azint_csr_<frames>_<engine>_frames: as the first, with AG_AZINT_FRAMES frames an item, item
                                        i taking row i % nbins of frames (i / nbins) x
                                        AG_AZINT_FRAMES on: a batch on CPU devices.

   Per pixel p of frame b, as pyFAI's preproc: raw = the frame's value in the engine's dtype,
   signal = raw - dark[p], normalisation norm[p] (the product of the static corrections, 0 for a
   pixel the dark or flat marks as dummy), variance by vmode (0 none, 1 max(raw, 1), 2 raw,
   3 var[p]). A pixel whose raw value is the dummy (within ddummy, when has_dummy), or whose
   signal, normalisation or variance is NaN or whose normalisation is 0, adds nothing, nor does
   an entry whose share is 0. Otherwise the entry's share w adds w signal, w norm, w and
   w^2 variance to the bin's four sums: a pixel of +-inf makes its bins +-inf, as in pyFAI
   0.21.3. The results of frame b go to [b][bin1][bin0], r = bin0 * nazim + bin1 (the transpose
   pyFAI returns in 2-D; nazim is 1 in 1-D): intensity = signal / norm and sigma =
   sqrt(variance) / norm where the count is above 0, else empty.

   CPU devices integrate through a copy of the matrix made for them at creation (the walk,
   src/diffraction/azint.c): rows in the order of their pixels on the detector in 2-D
   (has_order: the kernel's row r is bin bin_of[r]), and no entries of pixels whose
   normalisation is 0 or NaN. With has_sums (no dark, vmode 0 to 2), sums[2r] and
   sums[2r + 1] hold row r's normalisation and count over a frame with no pixel left out by its
   value; a row whose pixels are all kept by their values takes those two from there and reads
   only the frame, and any other row is walked again as above. Either way the results are those
   of the plain walk, bit for bit: the same entries are added in the same order.

   The sums are kept in double where the device has double precision (each product of two
   f32 values is then exact), else in compensated f32 (TwoSum, as kernels_shared/sparse.h);
   the results are rounded to the engine's dtype once, from the sums. */

/* T1: the frames' element type, T2: the engine's. n: nbins * the frames, as items or groups. */
#define AG_SHAPE_AZINT_CSR(A, V, B, T1, T2, T3)                                                    \
  B(const ag_u64, row_ptr) B(const ag_u32, col_idx) B(const T2, val) A(const T1, frames)           \
  A(const T2, dark) A(const T2, norm) A(const T2, var) V(ag_u64, npix) V(ag_u64, nrad)             \
  V(ag_u64, nazim) V(ag_u64, nbins) V(ag_u32, has_dark) V(ag_u32, has_dummy) V(T2, dummy)          \
  V(T2, ddummy) V(ag_u32, vmode) V(T2, empty) A(T2, intensity) A(T2, sigma) A(T2, sum_signal)     \
  A(T2, sum_variance) A(T2, sum_norm) A(T2, count) A(const ag_u32, bin_of) V(ag_u32, has_order)  \
  A(const T2, sums) V(ag_u32, has_sums) V(ag_u64, n_frames)

/* The largest work-group of ag_azint_csr_<frames>_<engine>_rows: its local memory holds one
   bin's sums per item. */
#define AG_AZINT_GROUP 32

/* The frames an item of ag_azint_csr_<frames>_<engine>_frames takes. */
#define AG_AZINT_FRAMES 4

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

/* Frames of the real dtypes a detector writes (codes 0 to 5: u8, u16, u32, i32, f32, f64); the
   op layer converts others first. */
#if AG_REAL && AG_TC <= 5 && (!AG_NEEDS_F64 || AG_HAVE_F64)
#define AG_AZ_ENGINE 4
#include "azint_engine.h"
#undef AG_AZ_ENGINE
#if AG_HAVE_F64
#define AG_AZ_ENGINE 5
#include "azint_engine.h"
#undef AG_AZ_ENGINE
#endif
#endif

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
