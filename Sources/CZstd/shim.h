#ifndef DOCENT_CZSTD_SHIM_H
#define DOCENT_CZSTD_SHIM_H
#include <zstd.h>
#endif
