#ifndef DOCENT_CZLIB_SHIM_H
#define DOCENT_CZLIB_SHIM_H
#include <zlib.h>
#endif
