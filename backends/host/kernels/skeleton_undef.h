/* backends/host/kernels/skeleton_undef.h - forgets skeleton.h's definitions, for the table
   pass. */
#undef AG_DEF_UNARY
#undef AG_DEF_BINARY
#undef AG_DEF_BCAST
#undef AG_DEF_BINARY_BCAST_B
#undef AG_DEF_BINARY_BCAST_A
#undef AG_DEF_BINARY_SCALAR
#undef AG_DEF_BINARY_RSCALAR
#undef AG_DEF_AXPBY
#undef AG_DEF_SOFT
#undef AG_DEF_CLAMP
#undef AG_DEF_WHERE
#undef AG_DEF_ROLL
#undef AG_DEF_REDUCE
#undef AG_HOST_LOOP
