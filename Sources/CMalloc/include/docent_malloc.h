#ifndef DOCENT_MALLOC_H
#define DOCENT_MALLOC_H

/* Tunes glibc's allocator for a long-running indexer: blocks of 256 KiB and more are mapped
   and unmapped on their own (glibc otherwise raises that threshold after each large free, and
   the texts passing through leave their peak behind as resident memory), and at most two
   arenas serve every thread. */
void docent_tune_malloc(void);

/* Gives the free memory at the top and in the middle of glibc's heaps back to the system
   (malloc_trim(0)): after a long document, its freed pieces otherwise stay resident. */
void docent_trim_malloc(void);

#endif
