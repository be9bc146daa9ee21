/* kernels_shared/families.h - the built-in kernel families, one line each. A family is one
   source, kernels_shared/<name>.h; AG_PER_DTYPE families are expanded once for each dtype
   (AG_TC, kernels_shared/variant.h), AG_ONCE families once. This list is read by the build
   (meson.build: the OpenCL, CUDA and host programs of each family), by the core's registry of
   built-in kernels (src/builtin.h) and by the host's table (backends/host/kernels/table.c).
   docs/kernels.md, "Adding a kernel family", says what else a new family needs. */
AG_FAMILY(fill, AG_ONCE)
AG_FAMILY(layout, AG_ONCE)
AG_FAMILY(elementwise, AG_PER_DTYPE)
AG_FAMILY(strided, AG_PER_DTYPE)
AG_FAMILY(reduce, AG_PER_DTYPE)
AG_FAMILY(sparse, AG_PER_DTYPE)
AG_FAMILY(azint, AG_PER_DTYPE)
AG_FAMILY(template, AG_PER_DTYPE)
AG_FAMILY(prox, AG_PER_DTYPE)
AG_FAMILY(tv, AG_PER_DTYPE)
AG_FAMILY(csc, AG_PER_DTYPE)
AG_FAMILY(pgm, AG_PER_DTYPE)
AG_FAMILY(nn, AG_PER_DTYPE)
AG_FAMILY(optim, AG_PER_DTYPE)
AG_FAMILY(mpol, AG_PER_DTYPE)
AG_FAMILY(arith, AG_PER_DTYPE)
AG_FAMILY(mathfn, AG_PER_DTYPE)
AG_FAMILY(create, AG_PER_DTYPE)
AG_FAMILY(scan, AG_PER_DTYPE)
AG_FAMILY(sort, AG_PER_DTYPE)
AG_FAMILY(select, AG_PER_DTYPE)
