/* src/diffraction/geometry.h - what geometry.c lends the rest of the diffraction layer: the
   checks of a geometry's fields that its public functions make. */
#ifndef AG_SRC_DIFFRACTION_GEOMETRY_H
#define AG_SRC_DIFFRACTION_GEOMETRY_H

#include "anygpu/diffraction.h"

/* @p poni's fields as every geometry function needs them: finite, dist and pixel sizes above 0,
   wavelength 0 or above. Returns AG_ERR_INVALID_ARGUMENT naming @p fn and the field as a C
   caller sets it (ag_poni.dist). */
ag_status ag__poni_check(const char *fn, const ag_poni *poni);

#endif
