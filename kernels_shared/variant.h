/* kernels_shared/variant.h - the element type of one kernel variant. Include with AG_TC set to
   a dtype code (the values of ag_dtype: 0 u8, 1 u16, 2 u32, 3 i32, 4 f32, 5 f64, 6 c64,
   7 c128); defines T (the element type), R (its real type), AG_SFX (the kernel name suffix,
   "_f32"), AG_RSFX (the real type's suffix) and the kind: AG_UINT, AG_SINT, AG_FLOAT,
   AG_CPLX. variant_end.h undoes it all, so a file may include several variants. */
#if AG_TC == 0
#define T ag_u8
#define AG_SFX _u8
#define AG_UINT 1
#elif AG_TC == 1
#define T ag_u16
#define AG_SFX _u16
#define AG_UINT 1
#elif AG_TC == 2
#define T ag_u32
#define AG_SFX _u32
#define AG_UINT 1
#elif AG_TC == 3
#define T ag_i32
#define AG_SFX _i32
#define AG_SINT 1
#elif AG_TC == 4
#define T ag_f32
#define R ag_f32
#define AG_SFX _f32
#define AG_RSFX _f32
#define AG_FLOAT 1
#elif AG_TC == 5
#define T ag_f64
#define R ag_f64
#define AG_SFX _f64
#define AG_RSFX _f64
#define AG_FLOAT 1
#define AG_NEEDS_F64 1
#elif AG_TC == 6
#define T ag_c64
#define R ag_f32
#define AG_SFX _c64
#define AG_RSFX _f32
#define AG_CPLX 1
#elif AG_TC == 7
#define T ag_c128
#define R ag_f64
#define AG_SFX _c128
#define AG_RSFX _f64
#define AG_CPLX 1
#define AG_NEEDS_F64 1
#else
#error "AG_TC must be a dtype code, 0 to 7"
#endif
#define AG_INT (AG_UINT || AG_SINT)
#define AG_REAL (AG_INT || AG_FLOAT)
/* The name of element function OP for this variant (ag_e_add_f32), and of kernel OP
   (ag_add_f32). OP is pasted at once, before it could expand: OpenCL implementations may
   define sqrt, exp, sign... as macros (pocl does). So OP must never travel through another
   macro's parameter: write AG_KN(sqrt) where it is used. */
#define AG_E(op) AG_CAT2(ag_e_##op, AG_SFX)
#define AG_KN(op) AG_CAT2(ag_##op, AG_SFX)
