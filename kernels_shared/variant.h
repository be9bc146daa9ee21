/* kernels_shared/variant.h - the element type of one kernel variant. Include with AG_TC set to
   a dtype code (the values of ag_dtype: 0 u8, 1 u16, 2 u32, 3 i32, 4 f32, 5 f64, 6 c64,
   7 c128, 8 bool, 9 i8, 10 i16, 11 i64, 12 u64); defines AG_T (the element type), AG_R (its
   real type), AG_DT (the dtype's name, f32), AG_RDT (its real type's name), AG_SFX (the
   kernel name suffix, _f32), AG_RSFX (the real type's suffix), AG_MAKE (builds a complex
   value, complex dtypes only), the kind: AG_UINT, AG_SINT, AG_FLOAT, AG_CPLX, AG_BOOLEAN
   (bool, named b1 in kernel names: an ag_u8 holding 0 or 1, in none of the other kinds), and for integers AG_UT, the
   unsigned type their arithmetic wraps in (ag_u32, or ag_u64 for the 64-bit ones, AG_WIDE).
   variant_end.h undoes it all, so one translation unit may expand a family for several
   dtypes. */
#if AG_TC == 0
#define AG_T ag_u8
#define AG_DT u8
#define AG_UINT 1
#elif AG_TC == 1
#define AG_T ag_u16
#define AG_DT u16
#define AG_UINT 1
#elif AG_TC == 2
#define AG_T ag_u32
#define AG_DT u32
#define AG_UINT 1
#elif AG_TC == 3
#define AG_T ag_i32
#define AG_DT i32
#define AG_SINT 1
#elif AG_TC == 4
#define AG_T ag_f32
#define AG_R ag_f32
#define AG_DT f32
#define AG_RDT f32
#define AG_FLOAT 1
#elif AG_TC == 5
#define AG_T ag_f64
#define AG_R ag_f64
#define AG_DT f64
#define AG_RDT f64
#define AG_FLOAT 1
#define AG_NEEDS_F64 1
#elif AG_TC == 6
#define AG_T ag_c64
#define AG_R ag_f32
#define AG_DT c64
#define AG_RDT f32
#define AG_MAKE AG_C64
#define AG_CPLX 1
#elif AG_TC == 7
#define AG_T ag_c128
#define AG_R ag_f64
#define AG_DT c128
#define AG_RDT f64
#define AG_MAKE AG_C128
#define AG_CPLX 1
#define AG_NEEDS_F64 1
#elif AG_TC == 8
#define AG_T ag_u8
#define AG_DT b1 /* numpy's short name: host C's stdbool.h makes bool a macro */
#define AG_BOOLEAN 1
#elif AG_TC == 9
#define AG_T ag_i8
#define AG_DT i8
#define AG_SINT 1
#elif AG_TC == 10
#define AG_T ag_i16
#define AG_DT i16
#define AG_SINT 1
#elif AG_TC == 11
#define AG_T ag_i64
#define AG_DT i64
#define AG_SINT 1
#define AG_WIDE 1
#elif AG_TC == 12
#define AG_T ag_u64
#define AG_DT u64
#define AG_UINT 1
#define AG_WIDE 1
#else
#error "AG_TC must be a dtype code, 0 to 12"
#endif
#if AG_WIDE
#define AG_UT ag_u64
#else
#define AG_UT ag_u32
#endif
#define AG_SFX AG_CAT2(_, AG_DT)
#define AG_RSFX AG_CAT2(_, AG_RDT)
#define AG_INT (AG_UINT || AG_SINT)
#define AG_REAL (AG_INT || AG_FLOAT)
/* The name of element function OP for this variant (ag_e_add_f32), and of the kernel whose
   name starts with BASE (AG_KN(ag_add) is ag_add_f32). OP is pasted at once, before it could
   expand: OpenCL implementations may define sqrt, exp, sign... as macros (pocl does). So a bare
   math name must never travel through another macro's parameter: write AG_E(sqrt) where it is
   used. Kernel names are written out in full (ag_sqrt), so grep finds them. */
#define AG_E(op) AG_CAT2(ag_e_##op, AG_SFX)
#define AG_KN(base) AG_CAT2(base, AG_SFX)
