/* fuzz/poni.c — the PONI parser (ag_poni_parse, src/diffraction/poni.c) on any text: it must
   return a status, never crash, and say why it refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <anygpu.h>
#include <anygpu/diffraction.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The parser takes a C string: the input up to its first NUL, as ag_poni_read would pass a
     file's text. */
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  ag_poni poni;
  ag_status st = ag_poni_parse(text, &poni);
  if (st != AG_OK && (ag_last_error() == NULL || strstr(ag_last_error(), "ag_poni_parse") == NULL))
    abort();
  free(text);
  return 0;
}
