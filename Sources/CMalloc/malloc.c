#include <malloc.h>
#include "docent_malloc.h"

void docent_tune_malloc(void) {
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_ARENA_MAX, 2);
}

void docent_trim_malloc(void) {
    malloc_trim(0);
}
