/* A program built by tests/cmake/CMakeLists.txt against an installed anygpu: it prints the
   version of the library it loaded and of the headers it was compiled with, and opens the host
   device. */
#include <anygpu.h>
#include <stdio.h>

int main(void) {
  printf("anygpu %s (headers %s)\n", ag_version(), AG_VERSION_STRING);
  ag_device *dev;
  if (ag_device_select("host", &dev) != AG_OK) {
    fprintf(stderr, "%s\n", ag_last_error());
    return 1;
  }
  ag_device_info info;
  if (ag_device_get_info(dev, &info) != AG_OK) {
    fprintf(stderr, "%s\n", ag_last_error());
    return 1;
  }
  printf("%s\n", info.spec);
  return 0;
}
