#ifndef DOCENT_CMAGIC_SHIM_H
#define DOCENT_CMAGIC_SHIM_H
#include <magic.h>
#endif
