/* kernels_shared/variant_end.h - undoes variant.h. */
#undef AG_T
#undef AG_R
#undef AG_DT
#undef AG_RDT
#undef AG_MAKE
#undef AG_SFX
#undef AG_RSFX
#undef AG_UINT
#undef AG_SINT
#undef AG_FLOAT
#undef AG_CPLX
#undef AG_BOOLEAN
#undef AG_WIDE
#undef AG_UT
#undef AG_NEEDS_F64
#undef AG_INT
#undef AG_REAL
#undef AG_E
#undef AG_KN
#undef AG_CF /* kernels_shared/element.h */
#undef AG_RF
#undef AG_BINARY_OPS
#undef AG_BINARY_POW_
#undef AG_BINARY_EXTREMES_
